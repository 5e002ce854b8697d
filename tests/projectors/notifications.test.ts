import t from 'tap'
import { type NotificationDoc, sendsByType } from '../../projectors/notifications/notification.ts'
import { notificationsProjection } from '../../projectors/all-projections.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { openReadStore, watchingLookups } from '../support/read-store.ts'
import { lastPosition, streamEvents } from '../support/recorded.ts'

/*
 * The notifications read model: one document a notification, holding where
 * it is (its order's document) and its e-mail payload's status, which the
 * e-mail sender's sweep looks up by `email_status`.
 */
const STREAM = 'order-7_A-1'
const AT = 1_800_000_000

const built = (id: number, payloads: { id: number; type: string }[], tracker_id?: number) => ({
  notification: {
    id,
    created_at: AT,
    language_code: 'en',
    notification_type: { id: 1, slug: 'order_placed' },
    notification_payloads: payloads.map((p) => ({
      ...p,
      created_at: AT,
      dispatched: false,
      status: 'built',
      error: null,
      support_cced: null,
    })),
  },
  ...(tracker_id === undefined ? {} : { tracker_id }),
  at: AT,
})

t.test('a notification keeps where it is and its e-mail payload, by status', async (t) => {
  const store = openReadStore(t)
  const event = streamEvents(STREAM)
  const apply = async (events: RecordedEvent[]) => {
    const writes = await notificationsProjection.apply(events, store)
    await store.commit([notificationsProjection.name], writes, lastPosition())
    return writes
  }
  const stored = async (id: number) => (await store.get<NotificationDoc>(collections.notifications.name, 7, id))?.doc
  const stillBuilt = async () =>
    (await store.lookupAll<NotificationDoc>(collections.notifications.name, 'email_status', 'built', 100)).map(
      (d) => d.id,
    )

  // Given a notification built with an e-mail and an SMS, and another with an SMS only
  await apply([
    event('OrderCreated', { order_id: 1 }),
    event(
      'NotificationBuilt',
      built(
        10,
        [
          { id: 11, type: 'email' },
          { id: 12, type: 'sms' },
        ],
        3,
      ),
    ),
    event('NotificationBuilt', built(20, [{ id: 21, type: 'sms' }])),
  ])
  // Then each is found by its id, with its order's document, and the e-mail waits to be sent
  t.same(await stored(10), {
    id: 10,
    order_key: STREAM,
    tracker_id: 3,
    email: { id: 11, status: 'built' },
    type: 'order_placed',
    sms: { id: 12, status: 'built' },
  })
  t.same(await stored(20), {
    id: 20,
    order_key: STREAM,
    tracker_id: null,
    email: null,
    type: 'order_placed',
    sms: { id: 21, status: 'built' },
  })
  t.same(await stillBuilt(), [10])

  // When the SMS is sent
  await apply([
    event('NotificationPayloadDispatched', { notification_id: 10, payload_id: 12, tracker_id: 3, at: AT + 1 }),
  ])
  // Then the e-mail still waits, and the SMS is counted sent
  t.same((await stored(10))?.email, { id: 11, status: 'built' })
  t.same((await stored(10))?.sms, { id: 12, status: 'dispatched' })
  t.same(await stillBuilt(), [10])

  // When the e-mail is sent
  await apply([
    event('NotificationPayloadDispatched', { notification_id: 10, payload_id: 11, tracker_id: 3, at: AT + 2 }),
  ])
  // Then nothing waits
  t.same((await stored(10))?.email, { id: 11, status: 'dispatched' })
  t.same(await stillBuilt(), [])
})

t.test('a notification built in the batch is not looked up', async (t) => {
  const store = openReadStore(t)
  const event = streamEvents(STREAM)
  const { watched, lookedUp } = watchingLookups(store)
  await notificationsProjection.apply(
    [event('OrderCreated', { order_id: 1 }), event('NotificationBuilt', built(10, [{ id: 11, type: 'email' }]))],
    watched,
  )
  t.same(lookedUp, [])
})

t.test('sends are counted by type and channel once their provider took or refused them', async (t) => {
  const doc = (type: string | undefined, email: string | null, sms: string | null): NotificationDoc => ({
    id: 1,
    order_key: STREAM,
    tracker_id: null,
    email: email === null ? null : { id: 2, status: email },
    ...(type === undefined ? {} : { type, sms: sms === null ? null : { id: 3, status: sms } }),
  })
  const counts = sendsByType([
    doc('shipped', 'dispatched', 'delivered'),
    doc('shipped', 'failed', 'undelivered'),
    doc('shipped', 'built', null),
    doc('delivered', null, 'failed'),
    doc(undefined, 'dispatched', null),
  ])
  t.same(Object.fromEntries(counts), {
    'shipped|email': { sent: 1, failed: 1 },
    'shipped|sms': { sent: 2, failed: 0 },
    'delivered|sms': { sent: 0, failed: 1 },
  })
})
