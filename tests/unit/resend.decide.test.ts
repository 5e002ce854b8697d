import t from 'tap'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { buildNotification } from '../../shared/domain/notifications/build.ts'
import { decideNotificationResent, type ResendNotification } from '../../shared/domain/orders/resend.ts'
import { evolveOrderState, type OrderState } from '../../shared/domain/orders/state.ts'
import { countingIds, specOf } from '../support/decider.ts'
import { orderHistory, TRACKER } from '../support/orders.ts'

/* A notification sent again from the console: on one channel, to the order's contacts as they are now. */

const CREATED = 1_800_000_000
const NOW = CREATED + 3600
const given = specOf<ResendNotification, OrderState, OrderEvent>({
  decide: decideNotificationResent,
  evolve: evolveOrderState,
})
const contacts = { email: 'ada@example.com', phone: '+33612345678', language_code: 'fr' }
const shippedSent = (history: OrderEvent[]): OrderEvent[] => [
  ...history,
  {
    type: 'NotificationBuilt',
    data: {
      notification: buildNotification('shipped', contacts, CREATED, countingIds(100)),
      tracker_id: TRACKER,
      at: CREATED,
    },
  },
]
const resend = (over: Partial<ResendNotification> = {}): ResendNotification => ({
  tracker_id: TRACKER,
  slug: 'shipped',
  channel: 'sms',
  at: NOW,
  ids: countingIds(500),
  ...over,
})

t.test('a notification sent for a parcel is built again, with one payload on the channel asked for', async (t) => {
  given(shippedSent(orderHistory(CREATED, { order: contacts })))
    .when(resend())
    .thenEvents(t, [
      {
        type: 'NotificationBuilt',
        data: {
          notification: {
            id: 500,
            created_at: NOW,
            language_code: 'fr',
            notification_type: { id: 2, slug: 'shipped' },
            notification_payloads: [
              {
                id: 501,
                created_at: NOW,
                dispatched: false,
                status: 'built',
                error: null,
                type: 'sms',
                support_cced: null,
              },
            ],
          },
          tracker_id: TRACKER,
          at: NOW,
        },
      },
    ])
})

t.test('a type never sent for the parcel, or a parcel of another order, is not found', async (t) => {
  given(shippedSent(orderHistory(CREATED, { order: contacts })))
    .when(resend({ slug: 'delivered' }))
    .thenThrows(t, { code: 'SHIPLOG_ERR_NOT_FOUND', message: 'No delivered notification was sent for this parcel' })
  given(shippedSent(orderHistory(CREATED, { order: contacts })))
    .when(resend({ tracker_id: 999 }))
    .thenThrows(t, { code: 'SHIPLOG_ERR_NOT_FOUND', message: 'Tracker not found' })
})

t.test('a channel that cannot reach the customer is refused, naming it', async (t) => {
  given(shippedSent(orderHistory(CREATED, { order: { ...contacts, phone: null } })))
    .when(resend({ channel: 'sms' }))
    .thenThrows(t, {
      code: 'SHIPLOG_ERR_VALIDATION',
      message: 'channel: the order has no phone number an SMS can reach',
    })
  given(shippedSent(orderHistory(CREATED, { order: { ...contacts, email: null } })))
    .when(resend({ channel: 'email' }))
    .thenThrows(t, { code: 'SHIPLOG_ERR_VALIDATION', message: 'channel: the order has no e-mail address' })
})

t.test('a muted order or parcel sends nothing, and says how to send again', async (t) => {
  given(shippedSent(orderHistory(CREATED, { order: { ...contacts, mute_notifications: true } })))
    .when(resend())
    .thenThrows(t, { code: 'SHIPLOG_ERR_CONFLICT', message: /muted for this order; unmute it/ })
  given(shippedSent(orderHistory(CREATED, { order: contacts, tracker: { mute_notifications: true } })))
    .when(resend())
    .thenThrows(t, { code: 'SHIPLOG_ERR_CONFLICT' })
})

t.test('the order’s own notification (order placed) is sent again for the order, in its language', async (t) => {
  const placed: OrderEvent = {
    type: 'NotificationBuilt',
    data: { notification: buildNotification('order_placed', contacts, CREATED, countingIds(100)), at: CREATED },
  }
  given([...orderHistory(CREATED, { order: contacts, tracker: { language_code: 'de' } }), placed])
    .when(resend({ tracker_id: undefined, slug: 'order_placed', channel: 'email' }))
    .thenMatch(t, [
      {
        type: 'NotificationBuilt',
        data: {
          notification: { language_code: 'fr', notification_payloads: [{ type: 'email' }] },
          tracker_id: undefined,
        },
      },
    ])
})
