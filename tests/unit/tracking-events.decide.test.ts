import t from 'tap'
import { emptyAddress, type FulfillmentChanges, type TrackerChanges } from '../../shared/domain/events/resources.ts'
import { type CarrierEventInput, decideTrackingEvents } from '../../shared/domain/orders/record-tracking-events.ts'
import { evolveOrderState } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { trackingEventKey } from '../../shared/domain/orders/tracking.ts'
import { type EventTypeCode, eventTypeCodes, statusOfEvent } from '../../shared/domain/vocabulary/tracking-codes.ts'
import { countingIds, specOf } from '../support/decider.ts'
import { orderHistory, recordedCarrierEvent, TRACKER } from '../support/orders.ts'

const NOW = 1_800_000_000
const at = (minutes: number) => NOW - 100_000 + minutes * 60

/**
 * A command of carrier events, each getting the event id 900 + its index when
 * new. The notifications a status change builds are left out here: their
 * rules have their own tests (notifications.decide.test.ts).
 */
const given = specOf<CarrierEventInput[], ReturnType<typeof evolveOrderState>, OrderEvent>({
  decide: (events, state) =>
    decideTrackingEvents(
      { events, eventIds: events.map((_, i) => 900 + i), now: NOW, ids: countingIds(5000) },
      state,
    ).events.filter((e) => e.type !== 'NotificationBuilt'),
  evolve: evolveOrderState,
})

/** The order of `orderHistory`, its tracker carried by Colissimo: the history most rules start from. */
const orderWith = (fulfillment: FulfillmentChanges = {}, tracker: TrackerChanges = {}) =>
  orderHistory(NOW, { fulfillment, tracker: { carrier: { code: 'colissimo', name: 'Colissimo' }, ...tracker } })
const order = orderWith()

const scan = (
  code: EventTypeCode | null,
  minutes: number,
  over: Partial<CarrierEventInput> = {},
): CarrierEventInput => ({
  tracking_number: 'TN',
  event_type_code: code,
  happened_at: at(minutes),
  ...over,
})

/** The history of a scan recorded earlier: its TrackingEventRecorded (and status change when it moved). */
function recorded(code: EventTypeCode | null, minutes: number, id: number, from?: string): OrderEvent[] {
  const input = scan(code, minutes)
  const event = recordedCarrierEvent(id, trackingEventKey(input, 'colissimo'), code, at(minutes))
  const events: OrderEvent[] = [{ type: 'TrackingEventRecorded', data: { tracker_id: TRACKER, event, at: NOW } }]
  if (from && code) {
    const to = statusOfEvent[code]
    events.push({
      type: 'TrackerStatusChanged',
      data: { tracker_id: TRACKER, from: from as never, to, happened_at: at(minutes), at: NOW },
    })
  }
  return events
}

/** The history the decider itself writes for these scans, one request each: a realistic given. */
function history(...scans: CarrierEventInput[]): OrderEvent[] {
  let state = order.reduce(evolveOrderState, undefined as never)
  const events: OrderEvent[] = []
  scans.forEach((s, i) => {
    const decided = decideTrackingEvents({ events: [s], eventIds: [100 + i], now: NOW, ids: countingIds(7000) }, state)
    events.push(...decided.events)
    state = decided.events.reduce(evolveOrderState, state)
  })
  return [...order, ...events]
}

t.test("an event's key is the digest every earlier version recorded, so a repeat stays a duplicate", async (t) => {
  // Digests recorded in logs written before: the key is part of the stored events and must never drift.
  t.equal(
    trackingEventKey(
      {
        tracking_number: '6A12345678901',
        happened_at: 1795000000,
        event_type_code: 'transit',
        message: 'Colis en cours d’acheminement',
      },
      'colissimo',
    ),
    'digest:031178f904ee31c7',
  )
  t.equal(
    trackingEventKey(
      { tracking_number: 'JD0001', happened_at: 1795003600, event_type_code: null, message: null },
      null,
    ),
    'digest:753073015bac4663',
  )
  t.equal(
    trackingEventKey(
      {
        tracking_number: 'EV00000001',
        happened_at: 1795007200,
        event_type_code: 'delivered',
        message: 'Livré "à la porte" \\ 😀',
      },
      'dhl',
    ),
    'digest:7cde7c6cbc3613b6',
  )
  t.equal(
    trackingEventKey(
      { tracking_number: 'JD0001', happened_at: 1, event_type_code: null, carrier_event_id: 'E-9' },
      'dhl',
    ),
    'carrier:E-9',
  )
})

t.test('every event type moves a pending tracker to its status', async (t) => {
  for (const code of eventTypeCodes) {
    given(order)
      .when([scan(code, 1)])
      .thenMatch(
        t,
        [
          { type: 'TrackingEventRecorded', data: { tracker_id: TRACKER, event: { id: 900, event_type_code: code } } },
          { type: 'TrackerStatusChanged', data: { from: 'pending', to: statusOfEvent[code], happened_at: at(1) } },
          ...(['label_created', 'pickup_point', 'incident', 'return', 'expired'].includes(code)
            ? []
            : [{ type: 'TrackerUpdated' }]),
        ],
        `${code} → ${statusOfEvent[code]}`,
      )
  }
})

/** Which of its parcel's firsts a scan is recorded as, after the history given. */
function firstsWhen(events: OrderEvent[], input: CarrierEventInput) {
  const state = events.reduce(evolveOrderState, undefined as never)
  const decided = decideTrackingEvents({ events: [input], eventIds: [990], now: NOW, ids: countingIds(8000) }, state)
  const recordedEvent = decided.events.find((e) => e.type === 'TrackingEventRecorded')
  return recordedEvent?.type === 'TrackingEventRecorded' ? recordedEvent.data.firsts : undefined
}

t.test("a scan is recorded with which of its parcel's firsts it is", async (t) => {
  const lyon = { city: 'Lyon', country_code: 'FR' }
  const brussels = { city: 'Bruxelles', country_code: 'BE' }
  // Given a parcel never scanned: its first scan naming a country is its origin, one naming none is no first
  t.same(firstsWhen(order, scan('label_created', 10, { address: lyon })), ['origin'])
  t.same(firstsWhen(order, scan('label_created', 10)), [])
  // Given a parcel scanned in France at minute 30, then a failed attempt at 40
  const seen = history(scan('transit', 30, { address: lyon }), scan('failed_attempt', 40))
  t.same(firstsWhen(seen, scan('transit', 50, { address: lyon })), [], 'a later scan naming a country')
  t.same(firstsWhen(seen, scan('transit', 20, { address: brussels })), ['origin'], 'an earlier one, arriving late')
  t.same(firstsWhen(seen, scan('failed_attempt', 45)), [], 'a second failed attempt')
  t.same(firstsWhen(seen, scan('incident', 46)), ['incident'], 'a first incident')
  t.same(firstsWhen(history(), scan('failed_attempt', 5, { address: lyon })), ['origin', 'failed_attempt'])
  // Given a failed attempt recorded before scans kept their firsts: the state learns it from the scan itself
  t.same(firstsWhen([...order, ...recorded('failed_attempt', 40, 1)], scan('failed_attempt', 45)), [])
})

t.test('an informational event is recorded and moves nothing', async (t) => {
  given(order)
    .when([scan(null, 1, { message: 'Weather delay' })])
    .thenMatch(t, [{ type: 'TrackingEventRecorded' }])
})

t.test('a late scan never moves a delivered parcel back', async (t) => {
  given([...order, ...recorded('delivered', 50, 1, 'pending')])
    .when([scan('transit', 30)])
    .thenMatch(t, [
      { type: 'TrackingEventRecorded', data: { event: { event_type_code: 'transit' } } },
      { type: 'TrackerUpdated', data: { changes: { shipped_at: at(30) } } },
    ])
})

t.test('a final status stays final: a later non-final scan is kept and moves nothing', async (t) => {
  const delivered = history(scan('transit', 30), scan('delivered', 50))
  given(delivered)
    .when([scan('transit', 80)])
    .thenMatch(t, [{ type: 'TrackingEventRecorded', data: { event: { event_type_code: 'transit' } } }])
  given(delivered)
    .when([scan('out_for_delivery', 80), scan('incident', 81)])
    .thenMatch(t, [{ type: 'TrackingEventRecorded' }, { type: 'TrackingEventRecorded' }])
})

t.test('a final status moves to a later final one: delivered, then returned', async (t) => {
  given(history(scan('transit', 30), scan('delivered', 50)))
    .when([scan('return', 90)])
    .thenMatch(t, [
      { type: 'TrackingEventRecorded' },
      { type: 'TrackerStatusChanged', data: { from: 'delivered', to: 'returned' } },
    ])
})

t.test('a newer scan moves the status on', async (t) => {
  given(history(scan('transit', 30)))
    .when([scan('out_for_delivery', 40)])
    .thenMatch(t, [
      { type: 'TrackingEventRecorded' },
      { type: 'TrackerStatusChanged', data: { from: 'in_transit', to: 'out_for_delivery' } },
    ])
})

t.test('the same status again records the event and no status change', async (t) => {
  given(history(scan('transit', 30)))
    .when([scan('origin_scan', 40)])
    .thenMatch(t, [{ type: 'TrackingEventRecorded' }])
})

t.test('ties: of two events at the same time, the later arrival sets the status', async (t) => {
  given([...order, ...recorded('out_for_delivery', 30, 1, 'pending')])
    .when([scan('failed_attempt', 30)])
    .thenMatch(t, [
      { type: 'TrackingEventRecorded' },
      { type: 'TrackerStatusChanged', data: { from: 'out_for_delivery', to: 'failed_attempt' } },
      { type: 'TrackerUpdated', data: { changes: { first_delivery_attempted_at: at(30) } } },
    ])
})

t.test('out of order within one batch: the newest event wins whatever the order of arrival', async (t) => {
  given(order)
    .when([scan('delivered', 90), scan('transit', 20), scan('label_created', 5)])
    .thenMatch(t, [
      { type: 'TrackingEventRecorded', data: { event: { event_type_code: 'delivered' } } },
      { type: 'TrackerStatusChanged', data: { to: 'delivered' } },
      {
        type: 'TrackerUpdated',
        data: { changes: { shipped_at: at(90), delivered_at: at(90), first_delivery_attempted_at: at(90) } },
      },
      { type: 'TrackingEventRecorded', data: { event: { event_type_code: 'transit' } } },
      { type: 'TrackerUpdated', data: { changes: { shipped_at: at(20) } } },
      { type: 'TrackingEventRecorded', data: { event: { event_type_code: 'label_created' } } },
    ])
})

t.test('duplicates: the same event again records nothing, within a batch or after', async (t) => {
  given([...order, ...recorded('transit', 30, 1, 'pending')])
    .when([scan('transit', 30)])
    .thenEvents(t, [])
  given(order)
    .when([scan('transit', 30, { carrier_event_id: 'c-1' }), scan('transit', 31, { carrier_event_id: 'c-1' })])
    .thenMatch(t, [{ type: 'TrackingEventRecorded' }, { type: 'TrackerStatusChanged' }, { type: 'TrackerUpdated' }])
  const outcome = decideTrackingEvents(
    { events: [scan('transit', 30)], eventIds: [901], now: NOW, ids: countingIds() },
    [...order, ...recorded('transit', 30, 77, 'pending')].reduce(evolveOrderState, undefined as never),
  ).outcomes
  t.same(outcome, [{ index: 0, status: 'duplicate', tracker_ids: [TRACKER], event_id: 77 }])
})

t.test('carrier_code narrows the match: another carrier’s event records nothing here', async (t) => {
  given(order)
    .when([scan('transit', 30, { carrier_code: 'dhl' })])
    .thenEvents(t, [])
  given(order)
    .when([scan('transit', 30, { carrier_code: 'colissimo' })])
    .thenMatch(t, [{ type: 'TrackingEventRecorded' }, { type: 'TrackerStatusChanged' }, { type: 'TrackerUpdated' }])
})

t.test('the carrier’s expected delivery, unless the merchant gave one', async (t) => {
  const eta = NOW + 86_400
  given(order)
    .when([scan(null, 30, { expected_delivery_at: eta })])
    .thenMatch(t, [
      { type: 'TrackingEventRecorded' },
      {
        type: 'TrackerUpdated',
        data: {
          changes: { displayable_expected_delivery_kind: 'carrier', displayable_expected_delivery_datetime: eta },
        },
      },
    ])
  const merchant: OrderEvent = {
    type: 'TrackerUpdated',
    data: { tracker_id: TRACKER, changes: { displayable_expected_delivery_kind: 'merchant' }, at: NOW },
  }
  given([...order, merchant])
    .when([scan(null, 30, { expected_delivery_at: eta })])
    .thenMatch(t, [{ type: 'TrackingEventRecorded' }])
})

t.test('a tracker that ships with no expected delivery is promised one by its carrier service', async (t) => {
  const monday = Date.UTC(2026, 10, 16, 10) / 1000
  const withService = orderWith(
    { shipping_address: { ...emptyAddress(21), country_code: 'FR' } },
    { carrier_service: { id: null, code: 'home', name: 'home' } },
  )
  const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const
  const home = {
    id: 77,
    carrier_code: 'colissimo',
    service_code: 'home',
    name: 'Colissimo Home',
    transit_days: [{ origin: null, destination: 'FR', days: 2 }],
    cutoff_time: '16:00',
    time_zone: 'Europe/Paris',
    pickup_days: [...weekdays],
    delivery_days: [...weekdays],
  }
  const decide = (history: OrderEvent[], events: CarrierEventInput[]) =>
    decideTrackingEvents(
      { events, eventIds: [900], now: NOW, ids: countingIds(), carrierServices: [home] },
      history.reduce(evolveOrderState, undefined as never),
    ).events.filter((e) => e.type !== 'NotificationBuilt')
  t.match(decide(withService, [{ tracking_number: 'TN', event_type_code: 'origin_scan', happened_at: monday }]), [
    { type: 'TrackingEventRecorded' },
    { type: 'TrackerStatusChanged' },
    {
      type: 'TrackerUpdated',
      data: {
        changes: {
          shipped_at: monday,
          displayable_expected_delivery_date: '2026-11-18',
          displayable_expected_delivery_datetime: null,
          displayable_expected_delivery_kind: 'promise',
        },
      },
    },
  ])
  const merchant: OrderEvent = {
    type: 'TrackerUpdated',
    data: { tracker_id: TRACKER, changes: { displayable_expected_delivery_kind: 'merchant' }, at: NOW },
  }
  const changes = decide(
    [...withService, merchant],
    [{ tracking_number: 'TN', event_type_code: 'origin_scan', happened_at: monday }],
  ).at(-1)
  t.same(
    changes?.data,
    { tracker_id: TRACKER, changes: { shipped_at: monday }, at: NOW },
    'the merchant’s date outranks it',
  )
})
