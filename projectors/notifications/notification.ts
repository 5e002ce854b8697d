import { type PayloadEvent, payloadStatusAfter } from '../../shared/domain/notifications/payload-outcomes.ts'
import { payloadOf } from './payload-document.ts'

/**
 * A notification as the notifications read model keeps it: the order
 * document holding it (for the routes that take a notification id), and its
 * e-mail payload's status, which the e-mail sender's sweep reads. One row a
 * notification: a new order's `order_placed` notification is one write, not
 * one for where it is and another for its e-mail.
 */
export interface NotificationDoc {
  id: number
  /** The order stream whose document holds the notification. */
  order_key: string
  tracker_id: number | null
  /** Its e-mail payload, when it has one, and whether it is still to be sent. */
  email: { id: number; status: string } | null
}

/** A notification's document after one of its events (undefined before it is built). */
export function evolveNotification(
  doc: NotificationDoc | undefined,
  event: PayloadEvent,
  stream: string,
): NotificationDoc | undefined {
  if (event.type === 'NotificationBuilt') {
    const email = payloadOf('email', event.data)
    return {
      id: event.data.notification.id,
      order_key: stream,
      tracker_id: event.data.tracker_id ?? null,
      email: email ? { id: email.id, status: email.status } : null,
    }
  }
  if (!doc?.email || doc.email.id !== event.data.payload_id) return doc
  return { ...doc, email: { id: doc.email.id, status: payloadStatusAfter(event) } }
}
