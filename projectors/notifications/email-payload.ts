import type { OrderEvent } from '../../shared/domain/orders/state.ts'

/**
 * An e-mail to a customer as its sender sees it: where its notification is,
 * and whether it is still to be sent. The sender's sweep queues again every
 * payload still `built`, so an e-mail whose queued job Redis lost is sent all
 * the same.
 */
export interface EmailPayloadDoc {
  id: number
  notification_id: number
  tracker_id: number | null
  /** The order stream holding the notification. */
  stream: string
  status: string
}

export type EmailPayloadEvent = Extract<
  OrderEvent,
  { type: 'NotificationBuilt' | 'NotificationPayloadDispatched' | 'NotificationPayloadFailed' }
>

/** Whether an event changes an e-mail payload: a notification built with one, or a payload's outcome. */
export const changesEmailPayload = (event: { type: string; data: unknown }) =>
  event.type === 'NotificationBuilt'
    ? emailPayloadOf(event.data as Extract<EmailPayloadEvent, { type: 'NotificationBuilt' }>['data']) !== undefined
    : event.type === 'NotificationPayloadDispatched' || event.type === 'NotificationPayloadFailed'

const emailPayloadOf = (data: Extract<EmailPayloadEvent, { type: 'NotificationBuilt' }>['data']) =>
  data.notification.notification_payloads.find((p) => p.type === 'email')

/** The document's source key: a notification holds at most one e-mail payload. */
export const emailPayloadKey = (stream: string, event: EmailPayloadEvent) =>
  `${stream}#${event.type === 'NotificationBuilt' ? event.data.notification.id : event.data.notification_id}`

export function evolveEmailPayload(
  doc: EmailPayloadDoc | undefined,
  event: EmailPayloadEvent,
  stream: string,
): EmailPayloadDoc | undefined {
  if (event.type === 'NotificationBuilt') {
    const payload = emailPayloadOf(event.data)
    return (
      payload && {
        id: payload.id,
        notification_id: event.data.notification.id,
        tracker_id: event.data.tracker_id ?? null,
        stream,
        status: payload.status,
      }
    )
  }
  if (!doc || doc.id !== event.data.payload_id) return doc
  return { ...doc, status: event.type === 'NotificationPayloadDispatched' ? 'dispatched' : 'failed' }
}
