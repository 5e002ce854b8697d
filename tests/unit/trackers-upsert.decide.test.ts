import t from 'tap'
import { evolveOrderState } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { decideTrackerUpserts, type TrackerUpsert } from '../../shared/domain/orders/upsert-trackers.ts'
import { countingIds, specOf } from '../support/decider.ts'

const NOW = 1_800_000_000
const HOURS = 3600
type Upsert = { items: TrackerUpsert[]; now?: number }
const given = specOf<Upsert, ReturnType<typeof evolveOrderState>, OrderEvent>({
  decide: ({ items, now = NOW }, state) =>
    decideTrackerUpserts({ items, now, accountLanguage: 'fr', ids: countingIds(state ? 1000 : 1) }, state).events,
  evolve: evolveOrderState,
})
const item = (over: Partial<TrackerUpsert> = {}): TrackerUpsert => ({
  order_number: 'R-1',
  tracking_number: '1Z999',
  email: 'ann@example.com',
  ...over,
})
/** What a first upsert of `item()` decides: the history of most tests. */
const created = (over: Partial<TrackerUpsert> = {}) =>
  decideTrackerUpserts({ items: [item(over)], now: NOW, accountLanguage: 'fr', ids: countingIds(1) }, undefined).events

t.test(
  'a new pair creates the order, its order_placed notification, and the tracker with its fulfillment',
  async (t) => {
    given([])
      .when({ items: [item({ carrier_code: 'ups' })] })
      .thenMatch(t, [
        {
          type: 'OrderCreated',
          data: { order_number: 'R-1', merchant_id: 'R-1', changes: { email: 'ann@example.com', language_code: 'fr' } },
        },
        {
          type: 'NotificationBuilt',
          data: {
            notification: {
              notification_type: { slug: 'order_placed' },
              notification_payloads: [{ status: 'built', type: 'email' }],
            },
          },
        },
        {
          type: 'TrackerCreated',
          data: {
            tracking_number: '1Z999',
            changes: { carrier: { code: 'ups' } },
            fulfillment: { status_code: 'shipped', fulfillment_number: '1Z999' },
          },
        },
      ])
  },
)

t.test('matching: the same pair sent again unchanged records nothing', async (t) => {
  given(created())
    .when({ items: [item()] })
    .thenEvents(t, [])
})

t.test('matching: the same pair with a change records only what changed', async (t) => {
  given(created())
    .when({ items: [item({ custom_variables: { gift: true }, first_name: 'Ann' })] })
    .thenMatch(t, [
      { type: 'OrderUpdated', data: { changes: { first_name: 'Ann' } } },
      { type: 'TrackerUpdated', data: { changes: { custom_variables: { gift: true } } } },
    ])
})

t.test('matching: another tracking number on the same order adds a fulfillment and a tracker', async (t) => {
  given(created())
    .when({ items: [item({ tracking_number: '1Z777' })] })
    .thenMatch(t, [
      { type: 'FulfillmentCreated', data: { fulfillment_number: '1Z777' } },
      { type: 'TrackerCreated', data: { tracking_number: '1Z777', fulfillment: undefined } },
    ])
})

t.test('matching: a pair repeated within one batch updates what the first item created', async (t) => {
  given([])
    .when({ items: [item(), item({ last_name: 'Lee' })] })
    .thenMatch(t, [
      { type: 'OrderCreated' },
      { type: 'NotificationBuilt' },
      { type: 'TrackerCreated' },
      { type: 'OrderUpdated', data: { changes: { last_name: 'Lee' } } },
    ])
})

t.test('36-hour rule: an order placed 36 hours ago is notified, one placed earlier is not', async (t) => {
  given([])
    .when({ items: [item({ order_date: NOW - 36 * HOURS })] })
    .thenMatch(t, [{ type: 'OrderCreated' }, { type: 'NotificationBuilt' }, { type: 'TrackerCreated' }])
  given([])
    .when({ items: [item({ order_date: NOW - 36 * HOURS - 1 })] })
    .thenMatch(t, [{ type: 'OrderCreated' }, { type: 'TrackerCreated' }])
})

t.test('mute: a muted item mutes its tracker only; the order is still notified', async (t) => {
  given([])
    .when({ items: [item({ mute_notifications: true })] })
    .thenMatch(t, [
      { type: 'OrderCreated' },
      { type: 'NotificationBuilt', data: { notification: { notification_type: { slug: 'order_placed' } } } },
      { type: 'TrackerCreated', data: { changes: { mute_notifications: true } } },
    ])
})

t.test('mute: whatever the order of items in a batch, the order is notified once', async (t) => {
  given([])
    .when({ items: [item({ mute_notifications: true }), item({ tracking_number: '1Z777' })] })
    .thenMatch(t, [
      { type: 'OrderCreated' },
      { type: 'NotificationBuilt' },
      { type: 'TrackerCreated', data: { changes: { mute_notifications: true } } },
      { type: 'TrackerCreated' },
    ])
})

t.test('a configured carrier service gives the tracker its id and name', async (t) => {
  const service = {
    id: 77,
    carrier_code: 'colissimo',
    service_code: 'home',
    name: 'Colissimo Home',
    transit_days: [],
    cutoff_time: '16:00',
    time_zone: 'Europe/Paris',
    pickup_days: [],
    delivery_days: [],
  }
  const decide = (code: string) =>
    decideTrackerUpserts(
      {
        items: [item({ carrier_code: 'colissimo', carrier_service_code: code })],
        now: NOW,
        accountLanguage: 'en',
        ids: countingIds(),
        carrierServices: [service],
      },
      undefined,
    ).events.find((e) => e.type === 'TrackerCreated')
  t.match(decide('home'), { data: { changes: { carrier_service: { id: 77, code: 'home', name: 'Colissimo Home' } } } })
  t.match(decide('express'), { data: { changes: { carrier_service: { id: null, code: 'express', name: 'express' } } } })
})

t.test('no e-mail: the notification exists with no payload', async (t) => {
  given([])
    .when({ items: [item({ email: undefined })] })
    .thenMatch(t, [
      { type: 'OrderCreated' },
      { type: 'NotificationBuilt', data: { notification: { notification_payloads: [] } } },
      { type: 'TrackerCreated' },
    ])
})

t.test('the order_placed notification is built once per order', async (t) => {
  given(created({ email: undefined }))
    .when({ items: [item({ tracking_number: '1Z777', email: 'late@example.com' })] })
    .thenMatch(t, [{ type: 'OrderUpdated' }, { type: 'FulfillmentCreated' }, { type: 'TrackerCreated' }])
})

t.test('a merchant expected delivery is the merchant kind; null clears it', async (t) => {
  given(created())
    .when({ items: [item({ expected_delivery_at: NOW + 48 * HOURS })] })
    .thenMatch(t, [
      {
        type: 'TrackerUpdated',
        data: {
          changes: {
            displayable_expected_delivery_kind: 'merchant',
            displayable_expected_delivery_datetime: NOW + 48 * HOURS,
          },
        },
      },
    ])
  given(created({ expected_delivery_at: NOW }))
    .when({ items: [item({ expected_delivery_at: null })] })
    .thenMatch(t, [{ type: 'TrackerUpdated', data: { changes: { displayable_expected_delivery_kind: null } } }])
})
