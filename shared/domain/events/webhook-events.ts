import { z } from 'zod'

const at = z.number().int()

/** What a merchant's systems can subscribe to. */
export const webhookMessageTypes = [
  'order.created',
  'order.updated',
  'tracker.created',
  'tracker.updated',
  'tracker.status_changed',
  'tracker.event_added',
  'tracker.delayed',
  'tracker.delay_cleared',
  'job.completed',
  'job.failed',
  'notification.dispatched',
  'webhook.test',
] as const
export type WebhookMessageType = (typeof webhookMessageTypes)[number]

/** `null` subscribes to every type, present and future (`*` or nothing in the request). */
const enabledEvents = z.array(z.enum(webhookMessageTypes)).nullable()

/**
 * Events of a webhook endpoint stream (`webhookendpoint-<accountId>_<endpointId>`).
 * The signing secret is kept sealed (shared/infra/secrets.ts): signing needs
 * it again, unlike an API key, which is only ever compared by its hash.
 * Events recorded before sealing hold it as it is, and read as such.
 */
export const webhookEndpointEvents = {
  WebhookEndpointCreated: z.object({
    endpoint_id: z.number().int(),
    url: z.string(),
    enabled_events: enabledEvents,
    description: z.string().nullable(),
    secret: z.string(),
    at,
  }),
  WebhookEndpointUpdated: z.object({
    changes: z
      .object({
        url: z.string(),
        enabled_events: enabledEvents,
        description: z.string().nullable(),
        status: z.enum(['enabled', 'disabled']),
      })
      .partial(),
    at,
  }),
  /**
   * A new signing secret. Until `previous_expires_at` (absent: at once) the
   * previous one signs beside it, so a receiver can switch without refusing
   * anything.
   */
  WebhookEndpointSecretRotated: z.object({
    secret: z.string(),
    previous_expires_at: z.number().int().optional(),
    at,
  }),
  WebhookEndpointDeleted: z.object({ at }),
  /** The merchant asked for a `webhook.test` message. */
  WebhookEndpointTested: z.object({ at }),
} as const

/**
 * Events of one message to one endpoint (`webhookmessage-<accountId>_<endpointId>_<position>`):
 * the message as it is sent every time (its body is fixed when it is created),
 * then each attempt's outcome and each replay.
 */
export const webhookMessageEvents = {
  WebhookMessageCreated: z.object({
    /** The id of the message's line in the endpoint's delivery log. */
    delivery_id: z.number().int(),
    endpoint_id: z.number().int(),
    /** Positions are 64-bit: kept as decimal text. */
    position: z.string(),
    type: z.enum(webhookMessageTypes),
    body: z.string(),
    /** The stream of the event it tells of (an order's, a job's): what the console lists an order's messages by. */
    subject: z.string().optional(),
    /**
     * The position of the first message of the batch job it was queued in,
     * in decimal: the job's id, under which a sweep queues it again. Absent
     * for a message queued alone (a replay's), or recorded before it was kept.
     */
    batch: z.string().optional(),
    at,
  }),
  WebhookDeliveryAttempted: z.object({
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    outcome: z.enum(['succeeded', 'retrying', 'failed']),
    /** Unix seconds of the next attempt when `retrying`. */
    next_attempt_at: z.number().int().nullable(),
    at,
  }),
  /** Sent again: by a replay job, or (no `job_id`) one message asked for from its delivery log. */
  WebhookMessageReplayed: z.object({ job_id: z.number().int().optional(), at }),
} as const
