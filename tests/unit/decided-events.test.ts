/**
 * The hot write paths (POST /v1/trackers, POST /v2/trackers/events,
 * POST /v2/orders) append their decided events without parsing them again against the event schemas
 * (toNewEvents' `prechecked`): the request schema has held every input to its
 * rules, and the deciders build events only of those values. This property
 * holds them to it: for any requests the route schemas accept, applied one
 * after another to the same orders, every event decided matches its schema.
 */
import fc from 'fast-check'
import t from 'tap'
import { orderBody } from '../../commands/orders/schema.ts'
import { trackingEventsBody } from '../../commands/trackers/events.ts'
import { upsertTrackersBody } from '../../commands/trackers/schema.ts'
import { isShiplogError } from '../../shared/domain/errors.ts'
import { assertValidEvent } from '../../shared/domain/events/index.ts'
import { decideTrackingEvents } from '../../shared/domain/orders/record-tracking-events.ts'
import { decideOrderUpsert, orderNumberOf } from '../../shared/domain/orders/upsert-order.ts'
import { evolveOrderState, type OrderState } from '../../shared/domain/orders/state.ts'
import { decideTrackerUpserts } from '../../shared/domain/orders/upsert-trackers.ts'
import { eventTypeCodes } from '../../shared/domain/vocabulary/tracking-codes.ts'
import { countingIds } from '../support/decider.ts'

const NOW = 1_800_000_000
const text = fc.oneof(
  fc.constantFrom('', ' ', 'Lyon', 'é 東京 🚚', '+33 6 12 34 56 78', '06 12 34 56 78', 'ann@example.com'),
  fc.string({ maxLength: 12 }),
)
const maybe = <T>(value: fc.Arbitrary<T>) => fc.option(fc.oneof(value, fc.constant(null)), { nil: undefined })
const when = fc.oneof(
  fc.integer({ min: NOW - 90 * 86_400, max: NOW + 30 * 86_400 }),
  fc.constantFrom('2027-01-15T10:00:00Z', '2027-01-15'),
)
const trackingNumber = fc.constantFrom('1Z001', '1Z002', 'LA123456789FR', '00340434161094042557')

const trackerItem = fc.record(
  {
    order_number: fc.constantFrom('R-1', 'R-2'),
    tracking_number: trackingNumber,
    address_city: maybe(text),
    address_country: maybe(fc.constantFrom('FR', 'us', 'DE', 'GB')),
    address_name: maybe(text),
    address_street: maybe(text),
    address_zip: maybe(text),
    carrier_code: maybe(fc.constantFrom('ups', 'colissimo', 'dhl', 'unknown-carrier')),
    custom_variables: maybe(fc.dictionary(fc.constantFrom('gift', 'vip', 'note'), fc.jsonValue({ maxDepth: 2 }))),
    email: maybe(text),
    expected_delivery_at: maybe(when),
    first_name: maybe(text),
    last_name: maybe(text),
    language_code: fc.option(fc.constantFrom('fr', 'en', 'de'), { nil: undefined }),
    mute_notifications: fc.option(fc.boolean(), { nil: undefined }),
    order_date: maybe(when),
    phone: maybe(text),
    untracked_carrier_name: maybe(text),
  },
  { requiredKeys: ['order_number', 'tracking_number'] },
)

const carrierEvent = fc.record(
  {
    tracking_number: trackingNumber,
    carrier_code: maybe(fc.constantFrom('ups', 'colissimo')),
    event_type_code: maybe(fc.constantFrom(...eventTypeCodes)),
    happened_at: when,
    message: maybe(text),
    messages: maybe(fc.dictionary(fc.constantFrom('fr', 'en'), text)),
    address: maybe(
      fc.record({
        address1: maybe(text),
        city: maybe(text),
        zip: maybe(text),
        country_code: maybe(fc.constantFrom('FR', 'US')),
      }),
    ),
    raw: maybe(text),
    carrier_event_id: maybe(fc.constantFrom('e1', 'e2', 'e3')),
    expected_delivery_at: maybe(when),
  },
  { requiredKeys: ['tracking_number', 'happened_at'] },
)

const address = maybe(
  fc.record({
    address1: maybe(text),
    city: maybe(text),
    zip: maybe(text),
    country: maybe(fc.constantFrom('fr', 'France', 'US')),
    country_code: maybe(fc.constantFrom('FR', 'US')),
    name: maybe(text),
  }),
)
const lineItem = fc.record(
  {
    merchant_id: fc.constantFrom('L1', 'L2', 'L3'),
    sku: maybe(text),
    name: maybe(text),
    quantity: maybe(fc.integer({ min: 0, max: 5 })),
    shipped_quantity: maybe(fc.integer({ min: 0, max: 5 })),
    canceled_quantity: maybe(fc.integer({ min: 0, max: 5 })),
    canceled: maybe(fc.boolean()),
    requires_shipping: maybe(fc.boolean()),
    thumbnail: maybe(fc.record({ src: text, width: fc.oneof(fc.nat(900), text), height: maybe(fc.nat(900)) })),
    custom_variables: maybe(fc.dictionary(fc.constantFrom('gift', 'note'), fc.jsonValue({ maxDepth: 2 }))),
  },
  { requiredKeys: ['merchant_id'] },
)
const orderTracker = fc.record(
  {
    tracking_number: trackingNumber,
    carrier_code: maybe(fc.constantFrom('ups', 'colissimo', 'unknown-carrier')),
    language_code: maybe(fc.constantFrom('fr', 'en')),
    line_items: maybe(fc.array(fc.oneof(fc.constantFrom('L1', 'L2', 'L3'), lineItem), { maxLength: 3 })),
    expected_delivery_at: maybe(when),
    mute_notifications: maybe(fc.boolean()),
    untracked_carrier_name: maybe(text),
  },
  { requiredKeys: ['tracking_number'] },
)
const order = fc.record(
  {
    merchant_id: fc.constantFrom('M-1', 'M-2'),
    email: maybe(fc.constantFrom('ann@example.com', 'bob@example.org')),
    first_name: maybe(text),
    phone: maybe(fc.constantFrom('+33 6 12 34 56 78', '06 12 34 56 78', 'x')),
    ordered_at: maybe(when),
    language_code: maybe(fc.constantFrom('fr', 'en', 'de')),
    mute_notifications: maybe(fc.boolean()),
    canceled: maybe(fc.boolean()),
    shipping_address: address,
    line_items: maybe(fc.array(lineItem, { maxLength: 3 })),
    fulfillments: maybe(
      fc.array(
        fc.record(
          {
            merchant_id: fc.constantFrom('F1', 'F2'),
            status_code: maybe(fc.constantFrom('pending', 'shipped', 'canceled', 'delayed')),
            shipping_address: address,
            line_items: maybe(fc.array(lineItem, { maxLength: 3 })),
            trackers: maybe(fc.array(orderTracker, { maxLength: 2 })),
          },
          { requiredKeys: ['merchant_id'] },
        ),
        { maxLength: 2 },
      ),
    ),
  },
  { requiredKeys: ['merchant_id'] },
)

/** A request: a batch of tracker upserts or of carrier events, or one order, as its route's schema accepts it. */
const request = fc.oneof(
  fc.array(trackerItem, { minLength: 1, maxLength: 4 }).map((trackers) => upsertTrackersBody.safeParse({ trackers })),
  fc.array(carrierEvent, { minLength: 1, maxLength: 4 }).map((events) => trackingEventsBody.safeParse({ events })),
  order.map((o) => orderBody.safeParse(o)),
)

t.test('every event decided from accepted requests matches its schema', async (t) => {
  let checked = 0
  const types = new Set<string>()
  fc.assert(
    fc.property(fc.array(request, { minLength: 1, maxLength: 8 }), (requests) => {
      const orders = new Map<string, OrderState | undefined>()
      const ids = countingIds(1)
      for (const [r, parsed] of requests.entries()) {
        if (!parsed.success) continue
        const now = NOW + r * 3600
        const data = parsed.data
        const decided =
          'merchant_id' in data
            ? [
                {
                  order: orderNumberOf(data),
                  events: unlessRefused(
                    () =>
                      decideOrderUpsert(
                        { order: data, now, accountLanguage: 'en', ids, notifying: { sms: true } },
                        orders.get(orderNumberOf(data)),
                      ).events,
                  ),
                },
              ]
            : 'trackers' in data
              ? [...groupBy(data.trackers, (i) => i.order_number)].map(([order, items]) => ({
                  order,
                  events: decideTrackerUpserts({ items, now, accountLanguage: 'en', ids }, orders.get(order)).events,
                }))
              : [...orders].map(([order, state]) => ({
                  order,
                  events: decideTrackingEvents(
                    { events: data.events, eventIds: data.events.map(() => ids.next()), now, ids },
                    state,
                  ).events,
                }))
        for (const { order, events } of decided) {
          for (const event of events) {
            assertValidEvent(event)
            types.add(event.type)
            checked++
          }
          orders.set(order, events.reduce(evolveOrderState, orders.get(order)))
        }
      }
    }),
    { seed: 20261123, numRuns: 300 },
  )
  t.ok(checked > 1000, `${checked} decided events checked against their schemas`)
  for (const type of [
    'OrderCreated',
    'FulfillmentCreated',
    'FulfillmentUpdated',
    'TrackerCreated',
    'OrderUpdated',
    'TrackerUpdated',
    'TrackingEventRecorded',
    'TrackerStatusChanged',
    'NotificationBuilt',
  ])
    t.ok(types.has(type), `${type} among them`)
})

/** A decision's events; none when the decider refuses the request with a 400 of its own (a fulfillment sent twice, say). */
function unlessRefused<E>(decide: () => E[]): E[] {
  try {
    return decide()
  } catch (error) {
    if (isShiplogError(error) && error.status === 400) return []
    throw error
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string) {
  const groups = new Map<string, T[]>()
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item])
  return groups
}
