import {
  isPayloadEvent,
  type PayloadEvent,
  payloadStatusAfter,
} from '../../shared/domain/notifications/payload-outcomes.ts'
import type { NotificationChannel } from '../../shared/domain/vocabulary/channels.ts'

/**
 * A payload to a customer (an SMS; an e-mail's state is kept on its
 * notification, ./notification.ts) as its sender sees it: where its
 * notification is, and whether it is still to be sent. The sender's sweep
 * queues again every payload still `built`, so one whose queued job Redis
 * lost is sent all the same.
 */
export interface PayloadDoc {
  id: number
  notification_id: number
  tracker_id: number | null
  /** The order stream holding the notification. */
  stream: string
  status: string
  /** The phone an SMS went to, once sent: an inbound STOP finds the accounts that text it. */
  to?: string
}

/** Whether an event changes a payload of this channel: a notification built with one, or a payload's outcome. */
export const changesPayload = (channel: NotificationChannel) => (event: { type: string; data: unknown }) =>
  event.type === 'NotificationBuilt'
    ? payloadOf(channel, event.data as Extract<PayloadEvent, { type: 'NotificationBuilt' }>['data']) !== undefined
    : isPayloadEvent(event)

/** A built notification's payload of this channel, if it has one. */
export const payloadOf = (
  channel: NotificationChannel,
  data: Extract<PayloadEvent, { type: 'NotificationBuilt' }>['data'],
) => data.notification.notification_payloads.find((p) => p.type === channel)

/** The document's source key: a notification holds at most one payload of each channel. */
export const payloadKey = (stream: string, event: PayloadEvent) =>
  `${stream}#${event.type === 'NotificationBuilt' ? event.data.notification.id : event.data.notification_id}`

export function evolvePayload(
  channel: NotificationChannel,
  doc: PayloadDoc | undefined,
  event: PayloadEvent,
  stream: string,
): PayloadDoc | undefined {
  if (event.type === 'NotificationBuilt') {
    const payload = payloadOf(channel, event.data)
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
  const to = event.type === 'NotificationPayloadDispatched' ? event.data.to : undefined
  return { ...doc, status: payloadStatusAfter(event), ...(to === undefined ? {} : { to }) }
}
