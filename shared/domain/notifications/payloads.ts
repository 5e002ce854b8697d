import type { OrderEvent } from '../orders/state.ts'

/*
 * A notification's payloads as their sender decides on them: each is built
 * once, then sent or given up on once. A payload's outcome is recorded only
 * while it is still `built`, so a second sender of the same payload (a retry,
 * a queue refilled after Redis lost it) records nothing.
 */

export type PayloadEvent = Extract<
  OrderEvent,
  { type: 'NotificationBuilt' | 'NotificationPayloadDispatched' | 'NotificationPayloadFailed' }
>

/** Each payload's status, by payload id. */
export type PayloadStates = Readonly<Record<number, string>>

/** The sender's outcome: sent, or given up on with the reason. */
export interface RecordPayloadOutcome {
  type: 'RecordPayloadOutcome'
  data: { notification_id: number; payload_id: number; tracker_id?: number; error?: string; at: number }
}

export function evolvePayloadStates(state: PayloadStates | undefined, event: PayloadEvent): PayloadStates {
  const next = { ...state }
  if (event.type === 'NotificationBuilt') {
    for (const p of event.data.notification.notification_payloads) next[p.id] = p.status
  } else {
    next[event.data.payload_id] = event.type === 'NotificationPayloadDispatched' ? 'dispatched' : 'failed'
  }
  return next
}

export function decidePayloadOutcome(command: RecordPayloadOutcome, state: PayloadStates | undefined): PayloadEvent[] {
  const { notification_id, payload_id, tracker_id, error, at } = command.data
  if (state?.[payload_id] !== 'built') return []
  const ids = { notification_id, payload_id, ...(tracker_id === undefined ? {} : { tracker_id }) }
  return [
    error === undefined
      ? { type: 'NotificationPayloadDispatched', data: { ...ids, at } }
      : { type: 'NotificationPayloadFailed', data: { ...ids, error, at } },
  ]
}
