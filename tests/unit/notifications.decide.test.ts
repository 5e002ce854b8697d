import t from 'tap'
import { decideTrackingEvents, type CarrierEventInput } from '../../shared/domain/orders/record-tracking-events.ts'
import { evolveOrderState } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { notificationOfStatus } from '../../shared/domain/notifications/types.ts'
import { countingIds, specOf } from '../support/decider.ts'
import { orderHistory, TRACKER } from '../support/orders.ts'

/*
 * Which customer notifications a tracker's status changes build: given an
 * order (with or without e-mail, muted or not), when carrier events arrive,
 * then the NotificationBuilt events decided.
 */

const NOW = 1_800_000_000

const decideWith = (disabledNotifications: string[] = []) =>
  specOf<CarrierEventInput[], ReturnType<typeof evolveOrderState>, OrderEvent>({
    decide: (events, state) =>
      decideTrackingEvents(
        {
          events,
          eventIds: events.map((_, i) => 900 + i),
          now: NOW,
          ids: countingIds(5000),
          notifying: { disabled: disabledNotifications, sms: false },
        },
        state,
      ).events,
    evolve: evolveOrderState,
  })
const given = decideWith()

const orderWith = (order: { email?: string | null; mute?: boolean; language?: string } = {}, trackerMute = false) =>
  orderHistory(NOW, {
    order: {
      email: order.email === undefined ? 'jane@example.com' : order.email,
      mute_notifications: order.mute ?? false,
      language_code: order.language ?? 'en',
    },
    tracker: { mute_notifications: trackerMute },
  })

const scan = (event_type_code: CarrierEventInput['event_type_code'], minutes = 0): CarrierEventInput => ({
  tracking_number: 'TN',
  event_type_code,
  happened_at: NOW - 10_000 + minutes * 60,
})

const built = (slug: string, payloads: number) => ({
  type: 'NotificationBuilt',
  data: {
    tracker_id: TRACKER,
    notification: {
      language_code: 'en',
      notification_type: { slug },
      notification_payloads: payloads ? [{ type: 'email', status: 'built', dispatched: false, error: null }] : [],
    },
  },
})
const notificationsOf = (events: OrderEvent[]) => events.filter((e) => e.type === 'NotificationBuilt')

t.test('each status builds its type, with an e-mail payload when the order has an address', async (t) => {
  const steps = [
    ['transit', 'shipped'],
    ['out_for_delivery', 'out_for_delivery'],
    ['failed_attempt', 'failed_attempt'],
    ['pickup_point', 'available_for_pickup'],
    ['incident', 'exception'],
    ['delivered', 'delivered'],
    ['return', 'returned'],
  ] as const
  for (const [code, slug] of steps) {
    const events = decideTrackingEvents(
      { events: [scan(code)], eventIds: [900], now: NOW, ids: countingIds(5000) },
      orderWith().reduce(evolveOrderState, undefined as never),
    ).events
    t.match(notificationsOf(events), [built(slug, 1)], `${code} → ${slug}`)
  }
})

t.test('a label created and an informational event build nothing', async (t) => {
  given(orderWith())
    .when([scan('label_created'), scan(null, 1)])
    .thenMatch(t, [
      { type: 'TrackingEventRecorded' },
      { type: 'TrackerStatusChanged' },
      { type: 'TrackingEventRecorded' },
    ])
})

t.test('a type is built once per tracker', async (t) => {
  const history = [
    ...orderWith(),
    ...decideTrackingEvents(
      { events: [scan('transit')], eventIds: [900], now: NOW, ids: countingIds(5000) },
      orderWith().reduce(evolveOrderState, undefined as never),
    ).events,
  ]
  const again = decideTrackingEvents(
    { events: [scan('failed_attempt', 1), scan('transit', 2)], eventIds: [901, 902], now: NOW, ids: countingIds(6000) },
    history.reduce(evolveOrderState, undefined as never),
  ).events
  t.match(
    notificationsOf(again).map((e) => e.type === 'NotificationBuilt' && e.data.notification.notification_type.slug),
    ['failed_attempt'],
    'shipped is not built twice',
  )
})

t.test('a first movement that is already a later step builds that step, not also shipped', async (t) => {
  t.equal(notificationOfStatus('delivered', []), 'delivered')
  t.equal(notificationOfStatus('in_transit', []), 'shipped')
  t.equal(notificationOfStatus('in_transit', ['shipped']), undefined)
  for (const step of ['out_for_delivery', 'failed_attempt', 'available_for_pickup', 'delivered'])
    t.equal(notificationOfStatus('in_transit', [step]), undefined, `no shipped after ${step}`)
  t.equal(notificationOfStatus('in_transit', ['order_placed']), 'shipped', 'order_placed is not a step of the parcel')
  t.equal(notificationOfStatus('info_received', []), undefined)
})

t.test('a muted order or tracker builds nothing', async (t) => {
  for (const history of [orderWith({ mute: true }), orderWith({}, true)]) {
    const events = decideTrackingEvents(
      { events: [scan('transit')], eventIds: [900], now: NOW, ids: countingIds(5000) },
      history.reduce(evolveOrderState, undefined as never),
    ).events
    t.same(notificationsOf(events), [])
  }
})

t.test('an order without e-mail gets the notification without payload', async (t) => {
  const events = decideTrackingEvents(
    { events: [scan('delivered')], eventIds: [900], now: NOW, ids: countingIds(5000) },
    orderWith({ email: null }).reduce(evolveOrderState, undefined as never),
  ).events
  t.match(notificationsOf(events), [built('delivered', 0)])
  const [notification] = notificationsOf(events)
  t.equal(notification?.type === 'NotificationBuilt' && notification.data.notification.notification_payloads.length, 0)
})

t.test('a type the account turned off is not built; the others are', async (t) => {
  const decide = (code: CarrierEventInput['event_type_code']) =>
    decideTrackingEvents(
      {
        events: [scan(code)],
        eventIds: [900],
        now: NOW,
        ids: countingIds(5000),
        notifying: { disabled: ['shipped'], sms: false },
      },
      orderWith().reduce(evolveOrderState, undefined as never),
    ).events
  t.same(notificationsOf(decide('transit')), [])
  t.match(notificationsOf(decide('delivered')), [built('delivered', 1)])
})

t.test('the notification speaks the order language', async (t) => {
  const events = decideTrackingEvents(
    { events: [scan('transit')], eventIds: [900], now: NOW, ids: countingIds(5000) },
    orderWith({ language: 'fr' }).reduce(evolveOrderState, undefined as never),
  ).events
  t.match(notificationsOf(events), [{ data: { notification: { language_code: 'fr' } } }])
})
