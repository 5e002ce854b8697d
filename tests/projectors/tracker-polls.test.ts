import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { TrackerPollDoc } from '../../projectors/polls/tracker-poll.ts'
import { trackerPollsProjection } from '../../projectors/projections.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { allCollections, collections } from '../../shared/infra/read-store/collections.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { tempDir } from '../support/temp.ts'

/* The poll documents: a tracker given a polled carrier, corrected, polled, ended. */

const STREAM = 'order-7_A-1'
const KEY = `${STREAM}#11`
const AT = 1_800_000_000
let position = 0n
let revision = -1
const recorded = (type: string, data: object): RecordedEvent => ({
  id: `e-${++revision}`,
  stream: STREAM,
  revision,
  position: ++position,
  type,
  data,
  metadata: { accountId: 7, correlationId: 't', recordedAt: 0 },
})
const carrier = (code: string) => ({ code, name: code })

function projected(t: Test) {
  const store = createSqliteReadStore(join(tempDir(t, 'shiplog-tracker-polls-'), 'read.db'), allCollections)
  t.teardown(() => store.close())
  revision = -1
  return {
    async apply(...events: RecordedEvent[]) {
      await store.commit(
        [trackerPollsProjection.name],
        await trackerPollsProjection.apply(events, store),
        events.at(-1)!.position,
      )
      return (await store.getByKey<TrackerPollDoc>(collections.tracker_polls.name, KEY))?.doc
    },
  }
}

const created = (code: string | null) =>
  recorded('TrackerCreated', {
    tracker_id: 11,
    uuid: 'u',
    fulfillment_id: 10,
    tracking_number: 'TN-1',
    changes: { carrier: code ? carrier(code) : null },
    at: AT,
  })
const carrierSet = (code: string, at: number) =>
  recorded('TrackerUpdated', { tracker_id: 11, changes: { carrier: carrier(code) }, at })

t.test('a corrected carrier is polled at once, its tracker keeping its number and polls', async (t) => {
  const polls = projected(t)
  await polls.apply(created('dhl'))
  await polls.apply(
    recorded('TrackerPolled', { tracker_id: 11, changed: false, interval: 60, next_poll_at: AT + 60, at: AT }),
  )
  const corrected = await polls.apply(carrierSet('royal_mail', AT + 10))
  t.match(corrected, {
    tracking_number: 'TN-1',
    carrier_code: 'royal_mail',
    api: 'royal_mail',
    next_poll_at: AT + 10,
    interval: 60,
    polls_that_day: 1,
  })
  t.equal((await polls.apply(carrierSet('evri', AT + 20)))?.next_poll_at, null, 'a carrier not polled: none')
})

t.test('a carrier given later starts polling; an ended tracker is not polled again whatever its carrier', async (t) => {
  const polls = projected(t)
  t.equal(await polls.apply(created(null)), undefined, 'no carrier, no document')
  t.match(await polls.apply(carrierSet('gls', AT + 5)), { api: 'gls', tracking_number: '', next_poll_at: AT + 5 })
  await polls.apply(recorded('TrackerStatusChanged', { tracker_id: 11, from: 'pending', to: 'delivered', at: AT + 6 }))
  t.equal((await polls.apply(carrierSet('postnl', AT + 7)))?.next_poll_at, null)
})
