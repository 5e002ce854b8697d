import { join } from 'node:path'
import t from 'tap'
import { deliveryStatsProjection, orderFactsKey } from '../../projectors/deliveries/delivery-stats.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { allCollections } from '../../shared/infra/read-store/collections.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { watchingLookups } from '../support/read-store.ts'
import { lastPosition, streamEvents } from '../support/recorded.ts'
import { tempDir } from '../support/temp.ts'

/* An order's delivery facts document: rewritten when a fact changes, left as it is by the scans that change none. */

const STREAM = 'order-7_D-1'
const AT = 1_800_000_000
const projection = deliveryStatsProjection()

t.test('a scan that changes no delivery fact writes nothing; one that does rewrites only the document', async (t) => {
  const store = createSqliteReadStore(join(tempDir(t, 'shiplog-delivery-stats-'), 'read.db'), allCollections)
  t.teardown(() => store.close())
  const apply = async (...events: RecordedEvent[]) => {
    const writes = await projection.apply(events, store)
    await store.commit([projection.name], writes, lastPosition())
    return writes
  }
  const event = streamEvents(STREAM)
  const scan = (code: string, country: string | null) =>
    event('TrackingEventRecorded', {
      tracker_id: 11,
      event: { id: 50, event_type_code: code, happened_at: AT, address: country && { country_code: country } },
      at: AT,
    })

  // Given an order with a UPS parcel, scanned once in France
  await apply(
    event('OrderCreated', { order_id: 5, order_number: 'D-1', changes: {}, at: AT }),
    event('TrackerCreated', {
      tracker_id: 11,
      fulfillment_id: 10,
      tracking_number: 'TN-1',
      changes: { carrier: { code: 'ups', name: 'UPS' } },
      at: AT,
    }),
  )
  const [origin] = await apply(scan('in_transit', 'FR'))
  t.match(origin, { key: orderFactsKey(STREAM), revision: 2, replaces: { revision: 1, changedFields: [] } })

  // When it is scanned again in transit, then its delivery is attempted
  t.same(await apply(scan('in_transit', 'BE')), [], 'a later scan elsewhere is not its origin: nothing written')
  const [attempt] = await apply(scan('failed_attempt', null))

  // Then the attempt is a fact, written at its revision over the stored one
  t.match(attempt, { revision: 4, replaces: { revision: 2 }, doc: { facts: { parcels: [{ failed_attempt: true }] } } })
  t.equal((await store.getByKey(projection.collection, orderFactsKey(STREAM)))?.revision, 4)
})

t.test('a new order is not looked up, and a replay of it counts its delivery once', async (t) => {
  const file = join(tempDir(t, 'shiplog-delivery-stats-'), 'read.db')
  const store = createSqliteReadStore(file, allCollections)
  t.teardown(() => store.close())
  const { watched, lookedUp: calls } = watchingLookups(store)
  /** The orders' facts looked up by the last apply (the weeks' sums are looked up too). */
  const lookedUp = () => calls.flat().filter((k) => k.startsWith('order:'))
  const apply = async (events: RecordedEvent[]) => {
    calls.length = 0
    await store.commit([projection.name], await projection.apply(events, watched), lastPosition())
  }
  /** Parcels delivered in the weeks' sums. */
  const delivered = async () => {
    const sums = await store.find<{ bucket: { days: Record<string, { delivered: number }> } }>(projection.collection, {
      accountId: 7,
      where: [{ field: 'kind', op: 'eq', value: 'bucket' }],
      limit: 100,
    })
    return sums.docs.flatMap((d) => Object.values(d.doc.bucket.days)).reduce((n, day) => n + day.delivered, 0)
  }
  const event = streamEvents('order-7_D-2')
  const created = [
    event('OrderCreated', { order_id: 6, order_number: 'D-2', changes: {}, at: AT }),
    event('TrackerCreated', {
      tracker_id: 21,
      fulfillment_id: 20,
      tracking_number: 'TN-2',
      changes: { carrier: { code: 'ups', name: 'UPS' } },
      at: AT,
    }),
  ]
  const deliveredEvent = event('TrackerUpdated', {
    tracker_id: 21,
    changes: { shipped_at: AT, delivered_at: AT + 2 * 86_400 },
    at: AT + 2 * 86_400,
  })
  const corrected = event('TrackerUpdated', { tracker_id: 21, changes: { delivered_at: null }, at: AT + 3 * 86_400 })

  // Given a new order, then its parcel delivered
  await apply(created)
  t.same(lookedUp(), [], 'the new order is not looked up')
  await apply([deliveredEvent])
  t.equal(await delivered(), 1)

  // When its events are applied again in one batch (a rebuild's catch-up replays what its shadow holds)
  await apply([...created, deliveredEvent])
  // Then the delivery is counted once
  t.equal(await delivered(), 1)

  // When the replay goes on to a correction that takes the delivery back
  await apply([...created, deliveredEvent, corrected])
  // Then the stored facts were found, and their contribution taken back
  t.same(lookedUp(), ['order:order-7_D-2'])
  t.equal(await delivered(), 0)
})
