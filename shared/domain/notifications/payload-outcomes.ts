import type { OrderEvent } from '../events/index.ts'

/*
 * A notification's payloads as their sender decides on them: each is built
 * once, then sent or given up on once. A payload's outcome is recorded only
 * while it is still `built`, so a second sender of the same payload (a retry,
 * a queue refilled after Redis lost it) records nothing.
 */

export type PayloadEvent = Extract<
  OrderEvent,
  {
    type:
      | 'NotificationBuilt'
      | 'NotificationPayloadDispatched'
      | 'NotificationPayloadFailed'
      | 'NotificationPayloadReported'
  }
>

export const payloadEventTypes = [
  'NotificationBuilt',
  'NotificationPayloadDispatched',
  'NotificationPayloadFailed',
  'NotificationPayloadReported',
] as const satisfies PayloadEvent['type'][]

const payloadEventTypeSet: ReadonlySet<string> = new Set(payloadEventTypes)
export const isPayloadEvent = <E extends { type: string }>(event: E): event is Extract<E, PayloadEvent> =>
  payloadEventTypeSet.has(event.type)

/** Each payload's status, by payload id. */
export type PayloadStates = Readonly<Record<number, string>>

interface PayloadIds {
  notification_id: number
  payload_id: number
  tracker_id?: number
}

/** The sender's outcome: sent (with the provider's id of the message, if it gives one), or given up on with the reason. */
export interface RecordPayloadOutcome {
  type: 'RecordPayloadOutcome'
  data: PayloadIds & { error?: string; provider_message_id?: string; to?: string; at: number }
}

/** The provider's delivery report on a sent payload: delivered, or not with the reason. */
export interface RecordDeliveryReport {
  type: 'RecordDeliveryReport'
  data: PayloadIds & { delivered: boolean; error?: string; provider_message_id: string; to?: string; at: number }
}

export type PayloadCommand = RecordPayloadOutcome | RecordDeliveryReport

export function evolvePayloadStates(state: PayloadStates | undefined, event: PayloadEvent): PayloadStates {
  const next = { ...state }
  if (event.type === 'NotificationBuilt') {
    for (const p of event.data.notification.notification_payloads) next[p.id] = p.status
  } else {
    next[event.data.payload_id] = payloadStatusAfter(event)
  }
  return next
}

/** A payload's status after an outcome or a report. */
export const payloadStatusAfter = (
  event: Exclude<PayloadEvent, { type: 'NotificationBuilt' }>,
): 'dispatched' | 'failed' | 'delivered' | 'undelivered' =>
  event.type === 'NotificationPayloadDispatched'
    ? 'dispatched'
    : event.type === 'NotificationPayloadFailed'
      ? 'failed'
      : event.data.status

/**
 * An outcome is recorded only on a payload still `built`, a delivery report
 * only on one `dispatched` (or still `built`: the provider reported before the
 * sender recorded it sent): whatever arrives twice, or late, records nothing.
 */
export function decidePayloadOutcome(command: PayloadCommand, state: PayloadStates | undefined): PayloadEvent[] {
  const { notification_id, payload_id, tracker_id, error, at } = command.data
  const ids = { notification_id, payload_id, ...(tracker_id === undefined ? {} : { tracker_id }) }
  const reason = error === undefined ? {} : { error }
  if (command.type === 'RecordDeliveryReport') {
    const status = command.data.delivered ? 'delivered' : 'undelivered'
    const reported: PayloadEvent = { type: 'NotificationPayloadReported', data: { ...ids, status, ...reason, at } }
    if (state?.[payload_id] === 'dispatched') return [reported]
    if (state?.[payload_id] !== 'built') return []
    // The report came before the sender recorded the message sent: it is sent, and this is what became of it.
    const { provider_message_id, to } = command.data
    const sent = { ...ids, provider_message_id, ...(to === undefined ? {} : { to }), at }
    return [{ type: 'NotificationPayloadDispatched', data: sent }, reported]
  }
  if (state?.[payload_id] !== 'built') return []
  const { provider_message_id, to } = command.data
  const sent = {
    ...(provider_message_id === undefined ? {} : { provider_message_id }),
    ...(to === undefined ? {} : { to }),
  }
  return [
    error === undefined
      ? { type: 'NotificationPayloadDispatched', data: { ...ids, ...sent, at } }
      : { type: 'NotificationPayloadFailed', data: { ...ids, error, at } },
  ]
}
