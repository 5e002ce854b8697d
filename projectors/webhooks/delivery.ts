import type { z } from 'zod'
import type { webhookDeliveryResource } from '../resources/schemas.ts'
import {
  evolveWebhookMessageState,
  webhookIdOf,
  type WebhookMessageEvent,
  type WebhookMessageState,
} from '../../shared/domain/webhooks/message.ts'

/** A line of an endpoint's delivery log: the message's delivery, without its body. */
export type WebhookDeliveryDoc = Omit<WebhookMessageState, 'body'>

export function evolveWebhookDelivery(doc: WebhookDeliveryDoc | undefined, event: WebhookMessageEvent) {
  const { body: _, ...state } = evolveWebhookMessageState(doc && { ...doc, body: '' }, event)
  return state satisfies WebhookDeliveryDoc
}

/** The webhook_delivery resource of `GET /v2/webhook_endpoints/{id}/deliveries`. */
export const renderWebhookDelivery = (d: WebhookDeliveryDoc): z.output<typeof webhookDeliveryResource> => ({
  object: 'webhook_delivery',
  id: d.delivery_id,
  webhook_id: webhookIdOf(d.position),
  type: d.type,
  position: d.position,
  status: d.status,
  attempts: d.attempts,
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  next_attempt_at: d.next_attempt_at,
  delivered_at: d.delivered_at,
  created_at: d.created_at,
})
