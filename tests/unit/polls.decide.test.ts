import t from 'tap'
import {
  decidePoll,
  evolvePollState,
  MAX_POLL_INTERVAL_SECONDS,
  type TrackerPolled,
} from '../../shared/domain/orders/polling.ts'
import { specOf } from '../support/decider.ts'

const poll = specOf({ decide: decidePoll, evolve: evolvePollState })
const BASE = 900
const polled = (interval: number, at: number): TrackerPolled => ({
  type: 'TrackerPolled',
  data: { tracker_id: 7, changed: false, interval, next_poll_at: at + interval, at },
})

t.test('a first poll asks again after the configured interval', async (t) => {
  poll([])
    .when({ type: 'RecordPoll', data: { tracker_id: 7, changed: false, base: BASE, at: 1000 } })
    .thenEvents(t, [
      { type: 'TrackerPolled', data: { tracker_id: 7, changed: false, interval: 900, next_poll_at: 1900, at: 1000 } },
    ])
})

t.test('while nothing changes the wait doubles, up to a day', async (t) => {
  poll([polled(900, 1000)])
    .when({ type: 'RecordPoll', data: { tracker_id: 7, changed: false, base: BASE, at: 1900 } })
    .thenMatch(t, [{ data: { interval: 1800, next_poll_at: 3700 } }])
  poll([polled(MAX_POLL_INTERVAL_SECONDS, 0)])
    .when({ type: 'RecordPoll', data: { tracker_id: 7, changed: false, base: BASE, at: 10 } })
    .thenMatch(t, [{ data: { interval: MAX_POLL_INTERVAL_SECONDS } }])
})

t.test('news from the carrier brings the wait back to the interval', async (t) => {
  poll([polled(900, 0), polled(14_400, 900)])
    .when({ type: 'RecordPoll', data: { tracker_id: 7, changed: true, base: BASE, at: 20_000 } })
    .thenEvents(t, [
      {
        type: 'TrackerPolled',
        data: { tracker_id: 7, changed: true, interval: 900, next_poll_at: 20_900, at: 20_000 },
      },
    ])
})
