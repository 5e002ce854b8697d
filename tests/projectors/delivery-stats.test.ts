import { join } from 'node:path'
import t from 'tap'
import {
  deliveryStatsProjection,
  type OrderFactsDoc,
  orderFactsKey,
} from '../../projectors/deliveries/delivery-stats.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { allCollections } from '../../shared/infra/read-store/collections.ts'
import { type ReadStore, wholeDocuments } from '../../shared/infra/read-store/port.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { watchingLookups } from '../support/read-store.ts'
import { lastPosition, streamEvents } from '../support/recorded.ts'
import { tempDir } from '../support/temp.ts'

/* An order's delivery facts document: rewritten when a fact changes, left as it is by the scans that change none. */

const STREAM = 'order-7_D-1'
const AT = 1_800_000_000
const projection = deliveryStatsProjection()

/**
 * The events of order D-<n> (`order-7_D-<n>`) with one UPS parcel, tracker 10n + 1: its creation, and
 * scans (with the firsts they record, when given).
 */
function parcelEvents(n = 1) {
  const event = streamEvents(`order-7_D-${n}`)
  const tracker_id = 10 * n + 1
  return {
    event,
    created: () => [
      event('OrderCreated', { order_id: 4 + n, order_number: `D-${n}`, changes: {}, at: AT }),
      event('TrackerCreated', {
        tracker_id,
        fulfillment_id: 10 * n,
        tracking_number: `TN-${n}`,
        changes: { carrier: { code: 'ups', name: 'UPS' } },
        at: AT,
      }),
    ],
    scan: (code: string, country: string | null, firsts?: string[]) =>
      event('TrackingEventRecorded', {
        tracker_id,
        event: { id: 50, event_type_code: code, happened_at: AT, address: country && { country_code: country } },
        ...(firsts && { firsts }),
        at: AT,
      }),
  }
}

t.test('a scan that changes no delivery fact writes nothing; one that does rewrites only the document', async (t) => {
  const store = createSqliteReadStore(join(tempDir(t, 'shiplog-delivery-stats-'), 'read.db'), allCollections)
  t.teardown(() => store.close())
  const apply = async (...events: RecordedEvent[]) => {
    const writes = wholeDocuments(await projection.apply(events, store))
    await store.commit([projection.name], writes, lastPosition())
    return writes
  }
  const { created, scan } = parcelEvents()

  // Given an order with a UPS parcel, scanned once in France
  await apply(...created())
  const [origin] = await apply(scan('in_transit', 'FR'))
  t.match(origin, { key: orderFactsKey(STREAM), revision: 2, replaces: { revision: 1, changedFields: [] } })

  // When it is scanned again in transit, then its delivery is attempted
  t.same(await apply(scan('in_transit', 'BE')), [], 'a later scan elsewhere is not its origin: nothing written')
  const [attempt] = await apply(scan('failed_attempt', null))

  // Then the attempt is a fact, written at its revision over the stored one
  t.match(attempt, { revision: 4, replaces: { revision: 2 }, doc: { facts: { parcels: [{ failed_attempt: true }] } } })
  t.equal((await store.getByKey(projection.collection, orderFactsKey(STREAM)))?.revision, 4)
})

t.test(
  "the scans recorded as none of their parcel's firsts, and the status moves they make, are not looked up for",
  async (t) => {
    const store = createSqliteReadStore(join(tempDir(t, 'shiplog-delivery-stats-'), 'read.db'), allCollections)
    t.teardown(() => store.close())
    const { watched, lookedUp: calls } = watchingLookups(store)
    const apply = async (...events: RecordedEvent[]) => {
      calls.length = 0
      await store.commit([projection.name], await projection.apply(events, watched), lastPosition())
      return calls.flat().filter((k) => k.startsWith('order:'))
    }
    const { event, created, scan } = parcelEvents()
    const moved = (to: string) =>
      event('TrackerStatusChanged', { tracker_id: 11, from: 'in_transit', to, happened_at: AT, at: AT })
    await apply(...created())
    // Given the parcel's origin scan, looked up as every scan is that is one of its firsts
    t.same(await apply(scan('in_transit', 'FR', ['origin'])), [orderFactsKey(STREAM)])
    // When later scans are recorded as none of its firsts, with the status moves they make
    t.same(await apply(scan('in_transit', 'BE', []), moved('out_for_delivery')), [], 'nothing looked up')
    // Then a scan recorded before scans kept their firsts is looked up, and a first failed attempt is a fact
    t.same(await apply(scan('in_transit', 'DE')), [orderFactsKey(STREAM)], 'no firsts: looked up as before')
    t.same(await apply(scan('failed_attempt', null, ['failed_attempt'])), [orderFactsKey(STREAM)])
    const stored = await store.getByKey<OrderFactsDoc>(projection.collection, orderFactsKey(STREAM))
    t.match(stored?.doc.facts.parcels, [{ origin: 'FR', failed_attempt: true }])
  },
)

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
  const parcel = parcelEvents(2)
  const event = parcel.event
  const created = parcel.created()
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

t.test('a facts document stored with objects keyed by id is read as pairs, and rewritten as pairs', async (t) => {
  const dir = tempDir(t, 'shiplog-delivery-stats-')
  const stores = ['now.db', 'before.db'].map((f) => createSqliteReadStore(join(dir, f), allCollections))
  t.teardown(() => Promise.all(stores.map((s) => s.close())))
  const [now, before] = stores as [ReadStore, ReadStore]
  const event = streamEvents('order-7_D-3')
  const sums = async (store: ReadStore) =>
    (
      await store.find<{ bucket: { days: Record<string, { delivered: number }> } }>(projection.collection, {
        accountId: 7,
        where: [{ field: 'kind', op: 'eq', value: 'bucket' }],
        limit: 100,
      })
    ).docs.map((d) => d.doc.bucket.days)
  const delivered = [
    event('OrderCreated', { order_id: 8, order_number: 'D-3', changes: {}, at: AT }),
    event('FulfillmentCreated', {
      fulfillment_id: 30,
      changes: { shipping_address: { id: 1, country_code: 'US', zip: '10001', state: 'NY' } },
      at: AT,
    }),
    event('TrackerCreated', {
      tracker_id: 31,
      fulfillment_id: 30,
      tracking_number: 'TN-3',
      changes: { carrier: { code: 'ups', name: 'UPS' } },
      at: AT,
    }),
    event('TrackerUpdated', { tracker_id: 31, changes: { shipped_at: AT, delivered_at: AT + 86_400 }, at: AT }),
  ]

  // Given an order delivered to New York, its facts stored as this projection stored them before pairs
  const writes = wholeDocuments(await projection.apply(delivered, now))
  const keyed = writes.map((w) => {
    if (w.key !== orderFactsKey('order-7_D-3')) return w
    const doc = w.doc as OrderFactsDoc
    return {
      ...w,
      doc: {
        ...doc,
        facts: { ...doc.facts, fulfillment_destinations: Object.fromEntries(doc.facts.fulfillment_destinations) },
        contributions: Object.fromEntries(doc.contributions),
      },
    }
  })
  await before.commit([projection.name], keyed, lastPosition())
  const [deliveredOn] = await sums(before)

  // When a later delivery scan sets the delivery a week later
  const later = event('TrackerUpdated', { tracker_id: 31, changes: { delivered_at: AT + 8 * 86_400 }, at: AT })
  const [facts, ...weeks] = wholeDocuments(await projection.apply([later], before))
  await before.commit([projection.name], [facts!, ...weeks], lastPosition())

  // Then the stored contribution was found and taken back: the parcel counts once, on its new day
  const days = (await sums(before)).flatMap((d) => Object.entries(d)).filter(([, day]) => day.delivered > 0)
  t.same(days.length, 1)
  t.not(days[0]![0], Object.keys(deliveredOn!)[0], 'moved to the later day')
  // And the facts document is written as pairs, the destination still New York's
  t.match(facts!.doc, {
    facts: { fulfillment_destinations: [[30, { country: 'US', postcode: '10001', state: 'NY' }]] },
    contributions: [[31, { destination: 'US', delivered: true }]],
  })
})
