import { type PayloadEvent, payloadStatusAfter } from '../../shared/domain/notifications/payload-outcomes.ts'
import { payloadOf } from './payload-document.ts'

/** A payload of a notification and what became of it. */
type PayloadState = { id: number; status: string } | null

/**
 * A notification as the notifications read model keeps it: the order
 * document holding it (for the routes that take a notification id), its
 * type, and its payloads' statuses: the e-mail's, which the e-mail sender's
 * sweep reads, and the SMS's, which the console counts. One row a
 * notification: a new order's `order_placed` notification is one write, not
 * one for where it is and another for its e-mail.
 */
export interface NotificationDoc {
  id: number
  /** The order stream whose document holds the notification. */
  order_key: string
  tracker_id: number | null
  /** Its e-mail payload, when it has one, and whether it is still to be sent. */
  email: PayloadState
  /** Its type's slug and its SMS payload; absent in documents built before they were kept. */
  type?: string
  sms?: PayloadState
}

const stateOf = (payload: { id: number; status: string } | undefined): PayloadState =>
  payload ? { id: payload.id, status: payload.status } : null

/** A notification's document after one of its events (undefined before it is built). */
export function evolveNotification(
  doc: NotificationDoc | undefined,
  event: PayloadEvent,
  stream: string,
): NotificationDoc | undefined {
  if (event.type === 'NotificationBuilt') {
    return {
      id: event.data.notification.id,
      order_key: stream,
      tracker_id: event.data.tracker_id ?? null,
      email: stateOf(payloadOf('email', event.data)),
      type: event.data.notification.notification_type.slug,
      sms: stateOf(payloadOf('sms', event.data)),
    }
  }
  if (!doc) return doc
  const status = payloadStatusAfter(event)
  if (doc.email?.id === event.data.payload_id) return { ...doc, email: { id: doc.email.id, status } }
  if (doc.sms?.id === event.data.payload_id) return { ...doc, sms: { id: doc.sms.id, status } }
  return doc
}

/** What a type's messages on a channel became: handed to the provider, or failed. */
export interface Sends {
  sent: number
  failed: number
}

/**
 * The notifications' payloads counted by type and channel (`<slug>|<channel>`):
 * sent once their provider took them, whatever it reported after; those still
 * to be sent are not counted, nor documents built before types were kept.
 */
export function sendsByType(docs: readonly NotificationDoc[]) {
  const counts = new Map<string, Sends>()
  for (const doc of docs) {
    if (!doc.type) continue
    for (const [channel, payload] of [
      ['email', doc.email],
      ['sms', doc.sms],
    ] as const) {
      if (!payload || payload.status === 'built') continue
      const key = `${doc.type}|${channel}`
      const count = counts.get(key) ?? { sent: 0, failed: 0 }
      if (payload.status === 'failed') count.failed++
      else count.sent++
      counts.set(key, count)
    }
  }
  return counts
}
