import t from 'tap'
import type { TrackerDoc } from '../../shared/domain/orders/document.ts'
import { newTracker } from '../../shared/domain/orders/evolve-document.ts'
import { trackersProjection } from '../../projectors/all-projections.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { openReadStore, watchingLookups } from '../support/read-store.ts'
import { lastPosition, streamEvents } from '../support/recorded.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { wholeDocuments } from '../../shared/infra/read-store/port.ts'

const STREAM = 'order-7_A-1'
const KEY = `${STREAM}#11`
const AT = 1_800_000_000
const DAY = 86_400
const created = {
  tracker_id: 11,
  uuid: '00000000-0000-4000-8000-000000000011',
  fulfillment_id: 10,
  tracking_number: 'TN-1',
}

const event = streamEvents(STREAM)
const recorded = (revision: number, type: string, data: object) => event(type, data, revision)

t.test('the trackers index keeps what trackers are found by, and moves with the status and the delay', async (t) => {
  const store = openReadStore(t)
  const apply = async (events: RecordedEvent[]) => {
    const writes = wholeDocuments(await trackersProjection.apply(events, store))
    await store.commit([trackersProjection.name], writes, lastPosition())
    return writes
  }

  // Given a tracker created
  const [creation] = await apply([recorded(2, 'TrackerCreated', { ...created, changes: { carrier: null }, at: AT })])
  // Then its delay is due a first look a day later
  const fresh = {
    id: 11,
    tracking_number: 'TN-1',
    created_at: AT,
    carrier_code: null,
    delay_status: null,
    delay_check_at: AT + DAY,
    delay_handled: false,
  }
  t.same(creation!.doc, { ...fresh, delivery_status_code: 'pending' })
  t.same(creation!.fields, {
    tracking_number: 'TN-1',
    delivery_status_code: 'pending',
    next_poll_at: null,
    delay_status: null,
    delay_check_at: AT + DAY,
    carrier_code: null,
    delay_open: null,
  })

  // When a carrier event is recorded and dates the tracker, without moving its status nor its delay's bounds
  const quiet = await apply([
    recorded(3, 'TrackingEventRecorded', { tracker_id: 11, event: { id: 50 }, at: AT + 1 }),
    recorded(4, 'TrackerUpdated', { tracker_id: 11, changes: { first_delivery_attempted_at: AT + 1 }, at: AT + 1 }),
    recorded(5, 'NotificationBuilt', { tracker_id: 11, notification: { id: 60 }, at: AT + 1 }),
  ])
  // Then the index is not written
  t.same(quiet, [])

  // When the status moves
  const [moved] = await apply([
    recorded(6, 'TrackerStatusChanged', { tracker_id: 11, from: 'pending', to: 'in_transit', happened_at: AT, at: AT }),
  ])
  // Then only the status changes, in place
  t.same(moved!.doc, { ...fresh, delivery_status_code: 'in_transit' })
  t.same(moved!.replaces, { revision: 2, changedFields: ['delivery_status_code'] })
  const found = await store.keysByField(collections.trackers.name, 7, 'delivery_status_code', ['in_transit'])
  t.same(found.get('in_transit'), [KEY])

  // A status set by a tracker update moves it too
  const [updated] = await apply([
    recorded(7, 'TrackerUpdated', { tracker_id: 11, changes: { delivery_status_code: 'delivered' }, at: AT + 2 }),
  ])
  t.equal((updated!.doc as { delivery_status_code: string }).delivery_status_code, 'delivered')
  t.equal(
    (updated!.doc as { delay_check_at: number | null }).delay_check_at,
    null,
    'a final tracker is never looked at',
  )
})

t.test('a tracker shipped days ago, or whose delay moved, is due when its events say', async (t) => {
  const store = openReadStore(t)
  const apply = async (events: RecordedEvent[]) => {
    const writes = wholeDocuments(await trackersProjection.apply(events, store))
    await store.commit([trackersProjection.name], writes, lastPosition())
    return writes.map((w) => w.doc as { delay_status: string | null; delay_check_at: number | null })
  }
  await apply([recorded(2, 'TrackerCreated', { ...created, changes: { carrier: null }, at: AT })])
  const [shipped] = await apply([
    recorded(3, 'TrackerUpdated', { tracker_id: 11, changes: { shipped_at: AT - 8 * DAY }, at: AT }),
  ])
  t.equal(shipped!.delay_check_at, AT - 7 * DAY, 'a day after it shipped: due at once')
  const delay = { status: 'stalled', since: AT - DAY, reason: 'no_scan', expected_delivery_date: null }
  const [stalled] = await apply([
    recorded(4, 'TrackerDelayChanged', { tracker_id: 11, delay, next_check_at: AT + 3 * DAY, at: AT }),
  ])
  t.same(stalled, { ...stalled, delay_status: 'stalled', delay_check_at: AT + 3 * DAY })
  const [looked] = await apply([
    recorded(5, 'TrackerDelayChecked', { tracker_id: 11, next_check_at: AT + 5 * DAY, at: AT }),
  ])
  t.equal(looked!.delay_check_at, AT + 5 * DAY)
  const found = await store.find(collections.trackers.name, {
    accountId: 7,
    where: [{ field: 'delay_status', op: 'in', values: ['stalled', 'late'] }],
    limit: 10,
  })
  t.equal(found.docs.length, 1, 'found by its delay')
})

t.test('a tracker created with a status is indexed under it', async (t) => {
  const store = openReadStore(t)
  // Given a tracker created already in transit, with its carrier
  const [creation] = wholeDocuments(
    await trackersProjection.apply(
      [
        recorded(2, 'TrackerCreated', {
          ...created,
          changes: { carrier: { code: 'ups', name: 'UPS' }, delivery_status_code: 'in_transit', shipped_at: AT },
          at: AT,
        }),
      ],
      store,
    ),
  )
  // Then its entry holds that status and its polling, and nothing else of the tracker
  t.same(creation!.doc, {
    id: 11,
    tracking_number: 'TN-1',
    delivery_status_code: 'in_transit',
    created_at: AT,
    carrier_code: 'ups',
    poll: { carrier_code: 'ups', api: 'ups', since: AT, interval: null, next_poll_at: AT },
    delay_status: null,
    delay_check_at: AT + DAY,
    delay_handled: false,
  })
  t.equal(creation!.fields.delivery_status_code, 'in_transit')
})

t.test('a full tracker document stored before the index became an index is trimmed on its next move', async (t) => {
  const store = openReadStore(t)
  const full: TrackerDoc = { ...newTracker({ ...created, at: AT }), events: [], notifications: [] }
  await store.commit(
    [trackersProjection.name],
    [
      {
        collection: collections.trackers.name,
        key: KEY,
        accountId: 7,
        id: 11,
        revision: 2,
        doc: full,
        fields: { tracking_number: 'TN-1', delivery_status_code: 'pending', created_at: AT },
      },
    ],
    1n,
  )
  const [moved] = wholeDocuments(
    await trackersProjection.apply(
      [
        recorded(3, 'TrackerStatusChanged', {
          tracker_id: 11,
          from: 'pending',
          to: 'delivered',
          happened_at: AT,
          at: AT,
        }),
      ],
      store,
    ),
  )
  t.same(moved!.doc, {
    id: 11,
    tracking_number: 'TN-1',
    delivery_status_code: 'delivered',
    created_at: AT,
    carrier_code: null,
    delay_status: null,
    delay_check_at: null,
    delay_handled: false,
  })
})

t.test(
  'a tracker is not looked up where its creation is in the batch, and a replay of it leaves a newer entry',
  async (t) => {
    const store = openReadStore(t)
    const { watched, lookedUp } = watchingLookups(store)
    const apply = async (events: RecordedEvent[]) =>
      store.commit([trackersProjection.name], await trackersProjection.apply(events, watched), lastPosition())
    const creation = recorded(2, 'TrackerCreated', { ...created, changes: { carrier: null }, at: AT })

    // Given a tracker created, then moved on
    await apply([creation])
    t.same(lookedUp, [], 'a new tracker is not looked up')
    await apply([
      recorded(3, 'TrackerStatusChanged', {
        tracker_id: 11,
        from: 'pending',
        to: 'in_transit',
        happened_at: AT,
        at: AT,
      }),
    ])
    t.same(lookedUp, [[KEY]], 'a tracker that exists is')

    // When its creation is applied again (a replay from before it)
    await apply([creation])

    // Then the stored entry is the newer one
    const stored = await store.getByKey<{ delivery_status_code: string }>(collections.trackers.name, KEY)
    t.equal(stored?.revision, 3)
    t.equal(stored?.doc.delivery_status_code, 'in_transit')
  },
)
