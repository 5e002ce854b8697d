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

t.test('a poll the carrier did not answer says why, and the last answer stays known', async (t) => {
  const failing = {
    type: 'RecordPoll' as const,
    data: { tracker_id: 7, changed: false, base: BASE, at: 1900, error: 'answered 503' },
  }
  poll([polled(900, 1000)])
    .when(failing)
    .thenEvents(t, [
      {
        type: 'TrackerPolled',
        data: { tracker_id: 7, changed: false, interval: 1800, next_poll_at: 3700, at: 1900, error: 'answered 503' },
      },
    ])
  const [failed] = decidePoll(failing, evolvePollState(undefined, polled(900, 1000)))
  const state = [polled(900, 1000), failed!].reduce(evolvePollState, undefined as never)
  t.match(state, { answered_at: 1000, failed: { at: 1900, error: 'answered 503' } }, 'stale since the answer at 1000')
  t.match(evolvePollState(state, polled(900, 4000)), { answered_at: 4000, failed: null }, 'an answer clears it')
  t.match(evolvePollState(undefined, failed!), { answered_at: null }, 'never answered')
})
