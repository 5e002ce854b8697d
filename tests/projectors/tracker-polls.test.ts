import { join } from 'node:path'
import Database from 'better-sqlite3'
import t, { type Test } from 'tap'
import type { TrackerIndexDoc } from '../../projectors/orders/tracker-index.ts'
import { trackersProjection } from '../../projectors/all-projections.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { streamEvents } from '../support/recorded.ts'
import { allCollections, collections } from '../../shared/infra/read-store/collections.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { tempDir } from '../support/temp.ts'

/* Trackers' polling, in their index entries: a tracker given a polled carrier, corrected, polled, ended. */

const STREAM = 'order-7_A-1'
const KEY = `${STREAM}#11`
const AT = 1_800_000_000
let recorded = streamEvents(STREAM)
const carrier = (code: string) => ({ code, name: code })

function projected(t: Test) {
  const store = createSqliteReadStore(join(tempDir(t, 'shiplog-tracker-polls-'), 'read.db'), allCollections)
  t.teardown(() => store.close())
  recorded = streamEvents(STREAM)
  return {
    async apply(...events: RecordedEvent[]) {
      await store.commit(
        [trackersProjection.name],
        await trackersProjection.apply(events, store),
        events.at(-1)!.position,
      )
      return (await store.getByKey<TrackerIndexDoc>(collections.trackers.name, KEY))?.doc
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
  t.match(await polls.apply(created('dhl')), { poll: { api: 'dhl', since: AT, next_poll_at: AT } }, 'due at once')
  await polls.apply(
    recorded('TrackerPolled', { tracker_id: 11, changed: false, interval: 60, next_poll_at: AT + 60, at: AT }),
  )
  const corrected = await polls.apply(carrierSet('royal_mail', AT + 10))
  t.match(corrected, {
    tracking_number: 'TN-1',
    poll: { carrier_code: 'royal_mail', api: 'royal_mail', next_poll_at: AT + 10, interval: 60, polls_that_day: 1 },
  })
  t.equal((await polls.apply(carrierSet('evri', AT + 20)))?.poll?.next_poll_at, null, 'a carrier not polled: none')
})

t.test('a carrier given later starts polling; an ended tracker is not polled again whatever its carrier', async (t) => {
  const polls = projected(t)
  t.equal((await polls.apply(created(null)))?.poll, undefined, 'no carrier, no polling')
  t.match(await polls.apply(carrierSet('gls', AT + 5)), {
    tracking_number: 'TN-1',
    poll: { api: 'gls', since: AT + 5, next_poll_at: AT + 5 },
  })
  await polls.apply(recorded('TrackerStatusChanged', { tracker_id: 11, from: 'pending', to: 'delivered', at: AT + 6 }))
  t.equal((await polls.apply(carrierSet('postnl', AT + 7)))?.poll?.next_poll_at, null)
})

t.test('a tracker delivered before it had a polled carrier is not polled once it gets one', async (t) => {
  const polls = projected(t)
  await polls.apply(created('evri'))
  await polls.apply(recorded('TrackerStatusChanged', { tracker_id: 11, from: 'pending', to: 'delivered', at: AT + 6 }))
  t.match(await polls.apply(carrierSet('dhl', AT + 7)), {
    delivery_status_code: 'delivered',
    poll: { next_poll_at: null },
  })
})

t.test(
  'the due lookup finds the trackers due, across accounts, soonest first, through the index of those set',
  async (t) => {
    const file = join(tempDir(t, 'shiplog-tracker-due-'), 'read.db')
    const store = createSqliteReadStore(file, allCollections)
    t.teardown(() => store.close())
    const entry = (id: number, next: number | null) => ({
      collection: collections.trackers.name,
      accountId: id,
      id,
      key: `order-${id}_A#${id}`,
      revision: 0,
      doc: {},
      fields: { tracking_number: `T${id}`, delivery_status_code: 'pending', next_poll_at: next },
    })
    await store.commit([], [entry(1, AT + 9), entry(2, null), entry(3, AT + 1), entry(4, AT + 99)], 1n)
    const due = await store.lookupDue(collections.trackers.name, 'next_poll_at', AT + 10, 10)
    t.same(
      due.map((d) => d.id),
      [3, 1],
    )
    // Millions of trackers, most never due again: the tick must not scan them.
    const db = new Database(file, { readonly: true })
    t.teardown(() => db.close())
    const plan = db
      .prepare('EXPLAIN QUERY PLAN SELECT id FROM trackers WHERE f_next_poll_at <= ? ORDER BY f_next_poll_at LIMIT ?')
      .all(AT, 10) as { detail: string }[]
    t.match(
      plan.map((p) => p.detail).join('; '),
      /USING INDEX \S*_due_next_poll_at/,
      'the index of those set serves it',
    )
  },
)
