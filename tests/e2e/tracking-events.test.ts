import t from 'tap'
import type { Test } from 'tap'
import { ORDER_STATE_VERSION, orderStream } from '../../shared/domain/orders/state.ts'
import {
  postTrackers,
  readAfter,
  recordTrackingEvents,
  startTestServer,
  type TestServer,
  trackerOf,
} from '../support/server.ts'

/**
 * Hours ago, not days: scans days old would make a parcel stalled, and the delay
 * sweep's write to its order would race the batches these tests count reads of.
 */
const T0 = Math.floor(Date.now() / 1000) - 6 * 3600
const EVENTS_EXPANDED = 'expand[]=fulfillments.trackers.events.address'

/** Counts, from now on, the events the write side reads back from the store to fold its orders. */
function countEventsReadBack(server: TestServer) {
  const store = server.runtime.eventStore
  const readStreamsToFold = store.readStreamsToFold.bind(store)
  let eventsRead = 0
  store.readStreamsToFold = async (requests) => {
    const read = await readStreamsToFold(requests)
    eventsRead += read.reduce((sum, events) => sum + events.length, 0)
    return read
  }
  return () => eventsRead
}

async function setUp(t: Test) {
  const server = await startTestServer(t)
  const created = await postTrackers(server, [
    { order_number: 'A-1', tracking_number: 'TN-1', carrier_code: 'colissimo' },
    { order_number: 'A-2', tracking_number: 'TN-2', carrier_code: 'dhl' },
  ])
  return { server, trackerId: created.body.trackers[0].id as number }
}

t.test('events move a tracker along its way, and render newest first with their address', async (t) => {
  const { server, trackerId } = await setUp(t)
  const pushed = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', event_type_code: 'label_created', happened_at: T0, message: 'Label' },
    {
      tracking_number: 'TN-1',
      event_type_code: 'origin_scan',
      happened_at: new Date((T0 + 3600) * 1000).toISOString(),
      message: 'Pris en charge',
      messages: { fr: 'Pris en charge', en: 'Picked up' },
      address: { city: 'Lyon', zip: '69001', country_code: 'fr' },
      raw: '{"code":"PC1"}',
    },
    { tracking_number: 'NOPE', event_type_code: 'transit', happened_at: T0 },
  ])
  t.equal(pushed.status, 201)
  t.ok(pushed.position, 'X-Shiplog-Position')
  t.match(pushed.body.events, [
    { tracking_number: 'TN-1', status: 'created', tracker_ids: [trackerId], event_id: Number },
    { tracking_number: 'TN-1', status: 'created', tracker_ids: [trackerId], event_id: Number },
    { tracking_number: 'NOPE', status: 'unknown_tracker', tracker_ids: [], event_id: null },
  ])
  const tracker = await trackerOf(server, 'TN-1', pushed.position)
  t.equal(tracker.delivery_status_code, 'in_transit')
  t.equal(tracker.shipped_at, T0 + 3600, 'shipped at the first carrier movement')
  t.equal(tracker.delivered_at, null)
  t.match(
    tracker.events.data.map((e: { event_type_code: string }) => e.event_type_code),
    ['origin_scan', 'label_created'],
    'newest first',
  )
  t.same(tracker.events.data[1].messages, { en: 'Label' }, 'a message alone is held under the account’s language')
  const order = await readAfter(server, `/v2/orders?order_number=A-1&${EVENTS_EXPANDED}`, pushed.position)
  const event = order.body.data[0].fulfillments.data[0].trackers.data[0].events.data[0]
  t.match(event, {
    object: 'event',
    id: pushed.body.events[1].event_id,
    event_type_code: 'origin_scan',
    happened_at: T0 + 3600,
    message: 'Pris en charge',
    messages: { fr: 'Pris en charge', en: 'Picked up' },
    raw: '{"code":"PC1"}',
    address: { object: 'address', city: 'Lyon', zip: '69001', country_code: 'FR', country: 'France' },
  })
  const stubbed = await readAfter(
    server,
    '/v2/orders?order_number=A-1&expand[]=fulfillments.trackers.events',
    pushed.position,
  )
  t.same(Object.keys(stubbed.body.data[0].fulfillments.data[0].trackers.data[0].events.data[0].address), [
    'object',
    'id',
  ])
})

t.test('a late older scan never moves a delivered parcel back; the first attempt and delivery are dated', async (t) => {
  const { server } = await setUp(t)
  await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', event_type_code: 'failed_attempt', happened_at: T0 + 100 },
  ])
  const delivered = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', event_type_code: 'delivered', happened_at: T0 + 500 },
  ])
  const late = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', event_type_code: 'transit', happened_at: T0 + 50 },
    { tracking_number: 'TN-1', event_type_code: null, happened_at: T0 + 900, message: 'Customer rated the delivery' },
  ])
  t.equal(late.body.events[0].status, 'created', 'the late scan is stored')
  const tracker = await trackerOf(server, 'TN-1', late.position)
  t.equal(tracker.delivery_status_code, 'delivered')
  t.equal(tracker.delivered_at, T0 + 500)
  t.equal(tracker.first_delivery_attempted_at, T0 + 100)
  t.equal(tracker.shipped_at, T0 + 50, 'the earliest movement, even when it arrives last')
  const ids = tracker.events.data.map((e: { id: number }) => e.id)
  t.same(
    ids,
    [...ids].sort((a: number, b: number) => b - a),
    'events are listed in descending id order, as every list',
  )
  t.same(
    tracker.events.data.map((e: { event_type_code: string | null }) => e.event_type_code),
    [null, 'transit', 'delivered', 'failed_attempt'],
    'the late scan is listed as it arrived, not by when it happened',
  )
  t.equal(tracker.events.data.length, 4)
  t.ok(delivered.position)
  const byStatus = await readAfter(server, '/v2/trackers?delivery_status_code=delivered', late.position)
  t.same(
    byStatus.body.data.map((x: { tracking_number: string }) => x.tracking_number),
    ['TN-1'],
  )
})

t.test('the same event sent twice is stored once: by carrier_event_id, or by what it says', async (t) => {
  const { server } = await setUp(t)
  const byId = { tracking_number: 'TN-2', event_type_code: 'transit', happened_at: T0, carrier_event_id: 'dhl-1' }
  const byContent = { tracking_number: 'TN-2', event_type_code: 'transit', happened_at: T0 + 60, message: 'Hub' }
  const first = await recordTrackingEvents(server, [byId, byContent])
  const again = await recordTrackingEvents(server, [{ ...byId, message: 'reworded' }, byContent, byContent])
  t.match(again.body.events, [
    { status: 'duplicate', event_id: first.body.events[0].event_id },
    { status: 'duplicate', event_id: first.body.events[1].event_id },
    { status: 'duplicate', event_id: first.body.events[1].event_id },
  ])
  const tracker = await trackerOf(server, 'TN-2', again.position)
  t.equal(tracker.events.data.length, 2)
})

t.test('the write side remembers the order its events led to: the next batch reads nothing back', async (t) => {
  const { server } = await setUp(t)
  await recordTrackingEvents(server, [{ tracking_number: 'TN-1', event_type_code: 'origin_scan', happened_at: T0 }])
  const eventsRead = countEventsReadBack(server)
  const next = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', event_type_code: 'delivered', happened_at: T0 + 60 },
  ])
  t.equal(next.body.events[0].status, 'created')
  t.equal(eventsRead(), 0, 'the events the first batch appended are not read again')
  t.equal((await trackerOf(server, 'TN-1', next.position)).delivery_status_code, 'delivered')
})

t.test('an order the write side does not remember is read back from its latest snapshot', async (t) => {
  // Remembering no order: every batch loads its orders from the store, as for orders beyond the cache.
  const server = await startTestServer(t, { env: { ORDER_CACHE_SIZE: '0' } })
  await postTrackers(server, [
    { order_number: 'L-1', tracking_number: 'LONG', carrier_code: 'colissimo', email: 'c@example.com' },
  ])
  const store = server.runtime.eventStore
  const stream = orderStream(server.accountId, 'L-1')
  const steps = ['label_created', 'origin_scan', 'transit', 'out_for_delivery'] as const
  for (const [i, code] of steps.entries()) {
    await recordTrackingEvents(server, [{ tracking_number: 'LONG', event_type_code: code, happened_at: T0 + i * 3600 }])
  }
  const [snapshot] = await store.readSnapshots!([stream], ORDER_STATE_VERSION)
  t.ok(snapshot, 'a load that read many events back left a snapshot')

  const eventsRead = countEventsReadBack(server)
  const again = await recordTrackingEvents(server, [
    { tracking_number: 'LONG', event_type_code: 'origin_scan', happened_at: T0 + 3600 },
  ])
  const history = await store.readStream(stream)
  t.equal(again.body.events[0].status, 'duplicate', 'an event recorded before the snapshot is still known')
  t.equal(eventsRead(), history.length - 1 - snapshot!.revision, 'only the events after the snapshot are read back')

  const delivered = await recordTrackingEvents(server, [
    { tracking_number: 'LONG', event_type_code: 'delivered', happened_at: T0 + 5 * 3600 },
  ])
  t.equal(delivered.body.events[0].status, 'created')
  const tracker = await trackerOf(server, 'LONG', delivered.position)
  t.equal(tracker.delivery_status_code, 'delivered')
  t.equal(tracker.events.data.length, 5)
})

t.test('carrier_code narrows the match; an event applies to every tracker with the number', async (t) => {
  const server = await startTestServer(t)
  const created = await postTrackers(server, [
    { order_number: 'B-1', tracking_number: 'SHARED', carrier_code: 'ups' },
    { order_number: 'B-2', tracking_number: 'SHARED', carrier_code: 'ups' },
    { order_number: 'B-3', tracking_number: 'SHARED', carrier_code: 'fedex' },
  ])
  const ids = created.body.trackers.map((x: { id: number }) => x.id)
  const pushed = await recordTrackingEvents(server, [
    { tracking_number: 'SHARED', carrier_code: 'ups', event_type_code: 'transit', happened_at: T0 },
    { tracking_number: 'SHARED', event_type_code: 'label_created', happened_at: T0 - 10 },
    { tracking_number: 'SHARED', carrier_code: 'dhl', event_type_code: 'transit', happened_at: T0 },
  ])
  t.same([...pushed.body.events[0].tracker_ids].sort(), [ids[0], ids[1]].sort())
  t.same([...pushed.body.events[1].tracker_ids].sort(), [...ids].sort())
  t.equal(pushed.body.events[2].status, 'unknown_tracker')
})

t.test('validation names each field and the whole batch writes nothing', async (t) => {
  const { server } = await setUp(t)
  const bad = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', event_type_code: 'transit', happened_at: T0 },
    { tracking_number: 'TN-1', event_type_code: 'teleported', happened_at: T0 },
    { tracking_number: 'TN-1', event_type_code: 'transit' },
    { tracking_number: 'TN-1', event_type_code: 'transit', happened_at: 'yesterday' },
    { tracking_number: 'TN-1', event_type_code: 'transit', happened_at: T0, address: { country_code: 'FRA' } },
  ])
  t.equal(bad.status, 400)
  t.match(bad.body.errors, {
    details: String,
    'events.1.event_type_code': /must be one of/,
    'events.2.happened_at': 'is required',
    'events.3.happened_at': /Unix seconds or an ISO 8601/,
    'events.4.address.country_code': /ISO 3166-1/,
  })
  t.notOk('events.0.happened_at' in bad.body.errors)
  const tracker = await trackerOf(server, 'TN-1')
  t.equal(tracker.events.data.length, 0, 'nothing written')
  t.equal(tracker.delivery_status_code, 'pending')
  const tooMany = await recordTrackingEvents(
    server,
    Array.from({ length: 1001 }, () => ({ tracking_number: 'TN-1', event_type_code: null, happened_at: T0 })),
  )
  t.equal(tooMany.status, 400)
  t.match(tooMany.body.errors, { events: /at most 1000/ })
  t.equal((await recordTrackingEvents(server, [])).status, 400)
})

t.test('an address takes postal_code and state_code as zip and state; another key is refused', async (t) => {
  const { server } = await setUp(t)
  const pushed = await recordTrackingEvents(server, [
    {
      tracking_number: 'TN-1',
      event_type_code: 'transit',
      happened_at: T0,
      address: { city: 'Lyon', postal_code: '69004', state_code: 'ARA', country_code: 'FR' },
    },
  ])
  t.equal(pushed.status, 201)
  const order = await readAfter(server, `/v2/orders?order_number=A-1&${EVENTS_EXPANDED}`, pushed.position)
  const event = order.body.data[0].fulfillments.data[0].trackers.data[0].events.data[0]
  t.match(event.address, { city: 'Lyon', zip: '69004', state: 'ARA', country_code: 'FR' })
  t.notOk('postal_code' in event.address, 'one name in the resource')

  const unknown = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', happened_at: T0, address: { city: 'Lyon', postcode: '69004', street: 'x' } },
  ])
  t.equal(unknown.status, 400)
  t.same(Object.keys(unknown.body.errors).sort(), ['details', 'events.0.address.postcode', 'events.0.address.street'])
  t.match(unknown.body.errors.details, /events\.0\.address\.postcode: is not a known field/)
  const both = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', happened_at: T0, address: { zip: '69001', postal_code: '69004' } },
  ])
  t.equal(both.status, 400)
  t.match(both.body.errors, { 'events.0.address.postal_code': /is zip by another name/ })
  const tracker = await trackerOf(server, 'TN-1')
  t.equal(tracker.events.data.length, 1, 'refused batches write nothing')
})

t.test('tenancy: another account’s tracking number is unknown; the public key is refused', async (t) => {
  const { server } = await setUp(t)
  const other = await server.newAccount()
  const theirs = await recordTrackingEvents(
    server,
    [{ tracking_number: 'TN-1', event_type_code: 'delivered', happened_at: T0 }],
    other.private_key,
  )
  t.equal(theirs.status, 201)
  t.equal(theirs.body.events[0].status, 'unknown_tracker')
  t.equal((await trackerOf(server, 'TN-1', theirs.position)).delivery_status_code, 'pending')
  const publicKey = await recordTrackingEvents(server, [{ tracking_number: 'TN-1', happened_at: T0 }], server.publicKey)
  t.equal(publicKey.status, 403)
  const noKey = await server.request('POST', '/v2/trackers/events', { body: { events: [] }, key: '' })
  t.equal(noKey.status, 401)
})

t.test('expected delivery: the carrier’s estimate, unless the merchant gave one', async (t) => {
  const server = await startTestServer(t)
  await postTrackers(server, [
    { order_number: 'E-1', tracking_number: 'CARRIER-ETA' },
    { order_number: 'E-2', tracking_number: 'MERCHANT-ETA', expected_delivery_at: T0 + 86_400 * 3 },
  ])
  const eta = T0 + 86_400 * 2
  const pushed = await recordTrackingEvents(server, [
    { tracking_number: 'CARRIER-ETA', event_type_code: 'transit', happened_at: T0, expected_delivery_at: eta },
    { tracking_number: 'MERCHANT-ETA', event_type_code: 'transit', happened_at: T0, expected_delivery_at: eta },
  ])
  t.match(await trackerOf(server, 'CARRIER-ETA', pushed.position), {
    displayable_expected_delivery_kind: 'carrier',
    displayable_expected_delivery_datetime: eta,
    displayable_expected_delivery_date: new Date(eta * 1000).toISOString().slice(0, 10),
  })
  t.match(await trackerOf(server, 'MERCHANT-ETA', pushed.position), {
    displayable_expected_delivery_kind: 'merchant',
    displayable_expected_delivery_datetime: T0 + 86_400 * 3,
  })
})

t.test('the history and as_of views include the events', async (t) => {
  const { server } = await setUp(t)
  const pushed = await recordTrackingEvents(server, [
    { tracking_number: 'TN-1', event_type_code: 'transit', happened_at: T0 },
  ])
  const order = (await readAfter(server, '/v2/orders?order_number=A-1', pushed.position)).body.data[0]
  const history = await readAfter(server, `/v2/orders/${order.id}/history?limit=100`, pushed.position)
  const types = history.body.data.map((e: { type: string }) => e.type)
  t.ok(types.includes('TrackingEventRecorded'), 'the recorded event is in the history')
  t.ok(types.includes('TrackerStatusChanged'), 'so is the status change')
  const asOf = await readAfter(
    server,
    `/v2/orders/${order.id}?as_of=${Math.floor(Date.now() / 1000) + 5}&expand[]=fulfillments.trackers.events`,
    pushed.position,
  )
  const tracker = asOf.body.fulfillments.data[0].trackers.data[0]
  t.equal(tracker.delivery_status_code, 'in_transit')
  t.equal(tracker.events.data.length, 1)
})
