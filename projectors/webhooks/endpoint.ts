import type { z } from 'zod'
import type { webhookEndpointResource } from '../resources/schemas.ts'
import {
  evolveWebhookEndpointState,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
} from '../../shared/domain/webhooks/endpoint.ts'

/** The endpoint as the read model keeps it: never a secret, which only the answers that make one show. */
export interface WebhookEndpointDoc extends Omit<WebhookEndpointState, 'secret' | 'previous_secret'> {
  created_at: number
  updated_at: number
}

export function evolveWebhookEndpoint(doc: WebhookEndpointDoc | undefined, event: WebhookEndpointEvent) {
  const {
    secret: _,
    previous_secret: __,
    ...state
  } = evolveWebhookEndpointState(doc && { ...doc, secret: '', previous_secret: null }, event)
  const at = event.data.at
  return { ...state, created_at: doc?.created_at ?? at, updated_at: at } satisfies WebhookEndpointDoc
}

/** The webhook_endpoint resource; `secret` is added only where one is made (create, rotate_secret). */
export const renderWebhookEndpoint = (
  e: Omit<WebhookEndpointDoc, 'deleted'>,
  secret?: string,
): z.output<typeof webhookEndpointResource> => ({
  object: 'webhook_endpoint',
  id: e.id,
  url: e.url,
  enabled_events: e.enabled_events ?? ['*'],
  description: e.description,
  status: e.status,
  created_at: e.created_at,
  updated_at: e.updated_at,
  ...(secret === undefined ? {} : { secret }),
})
