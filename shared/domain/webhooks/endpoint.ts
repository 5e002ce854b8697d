import { ShiplogError } from '../errors.ts'
import { changed } from '../same-value.ts'
import { assertNever, type DomainEvent, type EventData } from '../events/index.ts'
import type { WebhookMessageType, webhookEndpointEvents } from '../events/webhook-events.ts'

export type WebhookEndpointEvent = Extract<DomainEvent, { type: keyof typeof webhookEndpointEvents }>

/** What the write side and the webhook reaction know of an endpoint. */
export interface WebhookEndpointState {
  id: number
  url: string
  enabled_events: WebhookMessageType[] | null
  description: string | null
  status: 'enabled' | 'disabled'
  secret: string
  /** The secret before the last rotation, still signing until it expires (Standard Webhooks' rotation). */
  previous_secret: { secret: string; expires_at: number } | null
  deleted: boolean
}

/** The secrets that sign a message sent at `now`: the current one, and the previous one until it expires. */
export const signingSecrets = (endpoint: Pick<WebhookEndpointState, 'secret' | 'previous_secret'>, now: number) =>
  endpoint.previous_secret && now < endpoint.previous_secret.expires_at
    ? [endpoint.secret, endpoint.previous_secret.secret]
    : [endpoint.secret]

export const webhookEndpointStream = (accountId: number, endpointId: number) =>
  `webhookendpoint-${accountId}_${endpointId}`

/** The secret arrives made: the domain never draws random bytes. */
export type WebhookEndpointCommand =
  | { type: 'CreateWebhookEndpoint'; data: EventData<'WebhookEndpointCreated'> }
  | { type: 'UpdateWebhookEndpoint'; data: EventData<'WebhookEndpointUpdated'> }
  | { type: 'RotateWebhookSecret'; data: EventData<'WebhookEndpointSecretRotated'> }
  | { type: 'DeleteWebhookEndpoint'; data: EventData<'WebhookEndpointDeleted'> }
  | { type: 'TestWebhookEndpoint'; data: EventData<'WebhookEndpointTested'> }

const notFound = () => new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Webhook endpoint not found')

/** An endpoint is created once; a deleted one takes no command; an update that changes nothing records nothing. */
export function decideWebhookEndpoint(
  command: WebhookEndpointCommand,
  state: WebhookEndpointState | undefined,
): WebhookEndpointEvent[] {
  if (command.type === 'CreateWebhookEndpoint') {
    if (state) throw new ShiplogError('SHIPLOG_ERR_CONFLICT', `Webhook endpoint ${state.id} already exists`)
    return [{ type: 'WebhookEndpointCreated', data: command.data }]
  }
  if (!state || state.deleted) throw notFound()
  switch (command.type) {
    case 'UpdateWebhookEndpoint': {
      const changes = changed(state, command.data.changes)
      return changes ? [{ type: 'WebhookEndpointUpdated', data: { changes, at: command.data.at } }] : []
    }
    case 'RotateWebhookSecret':
      return [{ type: 'WebhookEndpointSecretRotated', data: command.data }]
    case 'DeleteWebhookEndpoint':
      return [{ type: 'WebhookEndpointDeleted', data: command.data }]
    case 'TestWebhookEndpoint':
      return [{ type: 'WebhookEndpointTested', data: command.data }]
    default:
      return assertNever(command)
  }
}

export function evolveWebhookEndpointState(
  state: WebhookEndpointState | undefined,
  event: WebhookEndpointEvent,
): WebhookEndpointState {
  if (event.type === 'WebhookEndpointCreated') {
    const { endpoint_id: id, url, enabled_events, description, secret } = event.data
    return { id, url, enabled_events, description, status: 'enabled', secret, previous_secret: null, deleted: false }
  }
  if (!state) throw new Error(`${event.type} before WebhookEndpointCreated`)
  switch (event.type) {
    case 'WebhookEndpointUpdated':
      return { ...state, ...event.data.changes }
    case 'WebhookEndpointSecretRotated': {
      const expires_at = event.data.previous_expires_at ?? event.data.at
      const previous_secret = expires_at > event.data.at ? { secret: state.secret, expires_at } : null
      return { ...state, secret: event.data.secret, previous_secret }
    }
    case 'WebhookEndpointDeleted':
      return { ...state, deleted: true }
    case 'WebhookEndpointTested':
      return state
    default:
      return assertNever(event)
  }
}

/** Whether an endpoint wants a message of this type: `webhook.test` goes only where it was asked for. */
export const subscribesTo = (
  endpoint: Pick<WebhookEndpointState, 'deleted' | 'status' | 'enabled_events'>,
  type: WebhookMessageType,
) =>
  !endpoint.deleted &&
  endpoint.status === 'enabled' &&
  type !== 'webhook.test' &&
  (endpoint.enabled_events === null || endpoint.enabled_events.includes(type))
