import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { JobDoc } from '../../projectors/jobs/job.ts'
import { evolveWebhookEndpoint, renderWebhookEndpoint } from '../../projectors/webhooks/endpoint.ts'
import {
  evolveWebhookDelivery,
  renderWebhookDelivery,
  type WebhookDeliveryDoc,
} from '../../projectors/webhooks/delivery.ts'
import { notFound, ShiplogError, validationError } from '../../shared/domain/errors.ts'
import { webhookMessageTypes } from '../../shared/domain/events/webhook-events.ts'
import {
  decideWebhookEndpoint,
  evolveWebhookEndpointState,
  type WebhookEndpointCommand,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
  webhookEndpointStream,
} from '../../shared/domain/webhooks/endpoint.ts'
import {
  decideWebhookMessage,
  evolveWebhookMessageState,
  type WebhookMessageEvent,
  type WebhookMessageState,
} from '../../shared/domain/webhooks/message.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import type { JobQueue, WorkQueue } from '../../shared/infra/jobs/queue.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { WEBHOOK_SECRET_PREFIX } from '../../shared/infra/webhooks/signing.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { refusedReceiver } from '../../shared/infra/webhooks/outbound.ts'
import { type CommandRequest, type CommandResponse, changeStream } from '../execute.ts'
import { acceptJob } from '../jobs/accept.ts'

/*
 * The commands on a webhook endpoint, with the schemas of what they take:
 * the API's routes and the console's forms both call these, so both check
 * the same rules with the same messages and record the same events.
 */

const receiverUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol)
    } catch {
      return false
    }
  }, 'must be an http:// or https:// URL')

/** `["*"]` or nothing subscribes to every type (stored as null); otherwise the types, each once. */
const enabledEvents = z
  .array(z.union([z.literal('*'), z.enum(webhookMessageTypes)]))
  .min(1, 'needs at least one type, or "*"')
  .transform((types) => (types.includes('*') ? null : [...new Set(types as (typeof webhookMessageTypes)[number][])]))

const description = z.string().max(5000).nullable()

export const createEndpointBody = z.strictObject({
  url: receiverUrl,
  enabled_events: enabledEvents.optional(),
  description: description.optional(),
})
export const updateEndpointBody = z.strictObject({
  url: receiverUrl.optional(),
  enabled_events: enabledEvents.optional(),
  description: description.optional(),
  status: z.enum(['enabled', 'disabled']).optional(),
})
export const replayEndpointBody = z.union([
  z.strictObject({ since: z.number().int().min(0) }),
  z.strictObject({ from_position: z.string().regex(/^\d{1,20}$/, 'must be a position, in decimal digits') }),
])

/** How long a rotated-out secret still signs by default, as Standard Webhooks advises: a day. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600

export const rotateSecretBody = z
  .strictObject({
    /** Seconds the previous secret signs beside the new one; 0 stops it at once. */
    expires_in: z
      .number()
      .int('must be whole seconds')
      .min(0, 'must be 0 or more seconds')
      .max(7 * 24 * 3600, 'must be at most 604800 seconds (7 days)')
      .optional(),
  })
  .nullish()

const DELIVERIES = collections.webhook_deliveries.name

/** `whsec_` and 32 random bytes in base64: the Standard Webhooks secret format. */
const newSecret = () => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`

/** Private and loopback receivers are refused unless the operator allows them; checked again at every send. */
async function checkReceiver(rt: Runtime, url: string | undefined) {
  if (url === undefined) return
  const refused = await refusedReceiver(url, rt.config.SHIPLOG_WEBHOOK_ALLOW_PRIVATE)
  if (!refused) return
  rt.logger.info({ url, detail: refused.detail }, 'webhook receiver refused')
  throw validationError(`The url is refused: ${refused.reason}`, { url: `is refused: ${refused.reason}` })
}

/** Each endpoint multiplies every event into a message: an account holds at most SHIPLOG_WEBHOOK_ENDPOINTS_MAX. */
async function underEndpointCap(rt: Runtime, accountId: number) {
  const max = rt.config.SHIPLOG_WEBHOOK_ENDPOINTS_MAX
  const { docs } = await rt.readStore.find(collections.webhook_endpoints.name, {
    accountId,
    where: [{ field: 'deleted', op: 'eq', value: 0 }],
    limit: max,
  })
  if (docs.length >= max) {
    throw new ShiplogError(
      'SHIPLOG_ERR_UNPROCESSABLE',
      `An account holds at most ${max} webhook endpoints; delete one first`,
    )
  }
}

/** One replay per endpoint at a time: a second would send every message again beside the first. */
async function noReplayRunning(rt: Runtime, accountId: number, endpointId: number) {
  for (const status of ['queued', 'processing'] as const) {
    const jobs = await rt.readStore.lookupAll<JobDoc>(collections.jobs.name, 'status', status, 10_000)
    const running = jobs.find(
      (j) =>
        j.accountId === accountId &&
        j.doc.type === 'webhook_endpoints.replay' &&
        (j.doc.payload.body as { endpoint_id?: number }).endpoint_id === endpointId,
    )
    if (running) {
      throw new ShiplogError(
        'SHIPLOG_ERR_CONFLICT',
        `A replay of this endpoint is already ${status} (job ${running.doc.id}); wait for it to end`,
      )
    }
  }
}

/**
 * The webhook endpoint commands of one runtime. Each answers as the API
 * does; an answer that made a secret carries it sealed (as recorded for an
 * Idempotency-Key repeat), and `revealed` opens it for the one caller shown it.
 */
export function webhookEndpointCommands(rt: Runtime) {
  const rendered = (all: WebhookEndpointEvent[], sealed?: string) =>
    renderWebhookEndpoint(all.reduce(evolveWebhookEndpoint, undefined as never), sealed)
  const change = (
    command: CommandRequest,
    endpointId: number,
    decide: (at: number) => WebhookEndpointCommand,
    answer: (all: WebhookEndpointEvent[]) => { status: number; body: unknown },
  ) =>
    changeStream<WebhookEndpointEvent, WebhookEndpointState>(rt, command, {
      stream: webhookEndpointStream(command.account.id, endpointId),
      evolve: evolveWebhookEndpointState,
      decide: (at, state) => decideWebhookEndpoint(decide(at), state),
      answer,
    })

  /** The endpoint as its stream has it; not found once deleted. */
  const liveEndpoint = async (accountId: number, endpointId: number) => {
    const recorded = await rt.eventStore.readStream(webhookEndpointStream(accountId, endpointId))
    const endpoint = asDomainEvents<WebhookEndpointEvent>(recorded).reduce(
      evolveWebhookEndpointState,
      undefined as never,
    )
    if (!endpoint || endpoint.deleted) throw notFound('Webhook endpoint not found')
    return endpoint
  }

  return {
    revealed(response: CommandResponse): CommandResponse {
      const shown = response.body as { secret?: string }
      return shown?.secret === undefined
        ? response
        : { ...response, body: { ...shown, secret: rt.secrets.open(shown.secret) } }
    },

    async create(command: CommandRequest, body: z.output<typeof createEndpointBody>) {
      await checkReceiver(rt, body.url)
      await underEndpointCap(rt, command.account.id)
      const id = rt.ids.next()
      const secret = rt.secrets.seal(newSecret())
      const { url, enabled_events = null, description = null } = body
      return change(
        command,
        id,
        (at) => ({
          type: 'CreateWebhookEndpoint',
          data: { endpoint_id: id, url, enabled_events, description, secret, at },
        }),
        (all) => ({ status: 201, body: rendered(all, secret) }),
      )
    },

    async update(command: CommandRequest, endpointId: number, body: z.output<typeof updateEndpointBody>) {
      await checkReceiver(rt, body.url)
      const changes = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined))
      return change(
        command,
        endpointId,
        (at) => ({ type: 'UpdateWebhookEndpoint', data: { changes, at } }),
        (all) => ({ status: 200, body: rendered(all) }),
      )
    },

    remove(command: CommandRequest, endpointId: number) {
      return change(
        command,
        endpointId,
        (at) => ({ type: 'DeleteWebhookEndpoint', data: { at } }),
        () => ({ status: 200, body: { object: 'webhook_endpoint', id: endpointId, deleted: true } }),
      )
    },

    rotateSecret(command: CommandRequest, endpointId: number, body: z.output<typeof rotateSecretBody>) {
      const secret = rt.secrets.seal(newSecret())
      const expiresIn = body?.expires_in ?? DEFAULT_ROTATION_GRACE_SECONDS
      return change(
        command,
        endpointId,
        (at) => ({ type: 'RotateWebhookSecret', data: { secret, previous_expires_at: at + expiresIn, at } }),
        (all) => ({ status: 200, body: rendered(all, secret) }),
      )
    },

    test(command: CommandRequest, endpointId: number) {
      return change(
        command,
        endpointId,
        (at) => ({ type: 'TestWebhookEndpoint', data: { at } }),
        () => ({ status: 202, body: { object: 'webhook_test', endpoint_id: endpointId } }),
      )
    },

    /**
     * Sends one message of an endpoint's delivery log again, at once and from
     * the start of the retry schedule, under its `webhook-id`: `202` with its
     * delivery, pending. It is queued at once when Redis is there, else by
     * the worker's sweep once it is back.
     */
    async replayDelivery(
      command: CommandRequest,
      deliveries: Pick<WorkQueue<{ accountId: number; stream: string }>, 'enqueueNow'> | undefined,
      endpointId: number,
      deliveryId: number,
    ) {
      await liveEndpoint(command.account.id, endpointId)
      const found = await rt.readStore.get<WebhookDeliveryDoc>(DELIVERIES, command.account.id, deliveryId)
      if (!found || found.doc.endpoint_id !== endpointId) throw notFound('Webhook delivery not found')
      const response = await changeStream<WebhookMessageEvent, WebhookMessageState>(rt, command, {
        stream: found.key,
        evolve: evolveWebhookMessageState,
        decide: (at, state) => decideWebhookMessage({ type: 'ReplayWebhookMessage', data: { at } }, state),
        answer: (all) => ({
          status: 202,
          body: renderWebhookDelivery(all.reduce<WebhookDeliveryDoc | undefined>(evolveWebhookDelivery, undefined)!),
        }),
      })
      await deliveries?.enqueueNow({ accountId: command.account.id, stream: found.key }).catch(() => false)
      return response
    },

    /** Queues a replay job; `path` is the API path it is recorded as asked on. */
    async replay(
      command: CommandRequest,
      jobs: JobQueue,
      endpointId: number,
      body: z.output<typeof replayEndpointBody>,
      path: string,
      log: Parameters<typeof acceptJob>[5],
    ) {
      await liveEndpoint(command.account.id, endpointId)
      await noReplayRunning(rt, command.account.id, endpointId)
      return acceptJob(
        rt,
        jobs,
        command,
        {
          type: 'webhook_endpoints.replay',
          payload: { method: 'POST', url: path, body: { endpoint_id: endpointId, ...body } },
        },
        'job',
        log,
      )
    },
  }
}
