import { assertNever, type DomainEvent, type EventData } from '../events/index.ts'
import type { WebhookMessageType, webhookMessageEvents } from '../events/webhook-events.ts'

export type WebhookMessageEvent = Extract<DomainEvent, { type: keyof typeof webhookMessageEvents }>

/** One message to one endpoint, as its delivery stands. */
export interface WebhookMessageState {
  delivery_id: number
  endpoint_id: number
  position: string
  type: WebhookMessageType
  body: string
  /** The stream of the event it tells of; null for a message recorded before it was kept. */
  subject: string | null
  /** The first message of the batch job it waits in, until tried or replayed (then its own job's); null for none. */
  batch: string | null
  created_at: number
  status: 'pending' | 'succeeded' | 'failed'
  /** Every attempt ever made, replays included. */
  attempts: number
  /** Failed attempts since the message was created or last replayed: where it stands on the retry schedule. */
  retries: number
  last_status_code: number | null
  last_error: string | null
  next_attempt_at: number | null
  delivered_at: number | null
}

/** How a message's stream is named before its account, endpoint and position. */
const MESSAGE_STREAM = 'webhookmessage-'

/**
 * The stream of one message to one endpoint: the message's position in the
 * log names it, so the reaction creating it twice (after a crash) meets the
 * stream it already wrote.
 */
export const webhookMessageStream = (accountId: number, endpointId: number, position: bigint | string) =>
  `${MESSAGE_STREAM}${accountId}_${endpointId}_${position}`

/** The endpoint and the log position a message's stream is named after. */
export function ofMessageStream(stream: string) {
  const [, endpointId, position] = stream.slice(MESSAGE_STREAM.length).split('_')
  return { endpointId: Number(endpointId), position: BigInt(position!) }
}

/** `webhook-id`: the same for a message across its retries, its replays and every endpoint it goes to. */
export const webhookIdOf = (position: bigint | string) => `msg_${position}`

export type WebhookMessageCommand =
  | { type: 'CreateWebhookMessage'; data: EventData<'WebhookMessageCreated'> }
  | {
      type: 'RecordDeliveryAttempt'
      data: { status_code: number | null; error: string | null; at: number; retrySchedule: readonly number[] }
    }
  | { type: 'ReplayWebhookMessage'; data: EventData<'WebhookMessageReplayed'> }

const succeeded = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300

/**
 * A message is created once. An attempt succeeds on a 2xx answer; otherwise
 * it waits the next delay of the retry schedule, and fails when the schedule
 * is spent. An attempt on a message that is no longer pending (a second
 * runner) records nothing. A replay puts the message back to pending at the
 * start of the schedule.
 */
export function decideWebhookMessage(
  command: WebhookMessageCommand,
  state: WebhookMessageState | undefined,
): WebhookMessageEvent[] {
  switch (command.type) {
    case 'CreateWebhookMessage':
      return state ? [] : [{ type: 'WebhookMessageCreated', data: command.data }]
    case 'RecordDeliveryAttempt': {
      if (state?.status !== 'pending') return []
      const { status_code, error, at, retrySchedule } = command.data
      const delay = retrySchedule[state.retries]
      const outcome = succeeded(status_code) ? 'succeeded' : delay === undefined ? 'failed' : 'retrying'
      const next_attempt_at = outcome === 'retrying' ? at + delay! : null
      const attempt = state.attempts + 1
      return [{ type: 'WebhookDeliveryAttempted', data: { attempt, status_code, error, outcome, next_attempt_at, at } }]
    }
    case 'ReplayWebhookMessage':
      return state ? [{ type: 'WebhookMessageReplayed', data: command.data }] : []
    default:
      return assertNever(command)
  }
}

export function evolveWebhookMessageState(
  state: WebhookMessageState | undefined,
  event: WebhookMessageEvent,
): WebhookMessageState {
  if (event.type === 'WebhookMessageCreated') {
    const { delivery_id, endpoint_id, position, type, body, subject, batch, at } = event.data
    return {
      delivery_id,
      endpoint_id,
      position,
      type,
      body,
      subject: subject ?? null,
      batch: batch ?? null,
      created_at: at,
      status: 'pending',
      attempts: 0,
      retries: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: null,
      delivered_at: null,
    }
  }
  if (!state) throw new Error(`${event.type} before WebhookMessageCreated`)
  switch (event.type) {
    case 'WebhookDeliveryAttempted': {
      const { attempt, status_code, error, outcome, next_attempt_at, at } = event.data
      return {
        ...state,
        status: outcome === 'retrying' ? 'pending' : outcome,
        attempts: attempt,
        retries: outcome === 'retrying' ? state.retries + 1 : state.retries,
        batch: null,
        last_status_code: status_code,
        last_error: error,
        next_attempt_at,
        delivered_at: outcome === 'succeeded' ? at : state.delivered_at,
      }
    }
    case 'WebhookMessageReplayed':
      return { ...state, status: 'pending', retries: 0, next_attempt_at: null, batch: null }
    default:
      return assertNever(event)
  }
}
