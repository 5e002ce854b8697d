import {
  deletedWebhookEndpoint,
  jobResource,
  webhookEndpointResource,
  webhookTest,
} from '../../projectors/resources/schemas.ts'
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { evolveWebhookEndpoint, renderWebhookEndpoint } from '../../projectors/webhooks/endpoint.ts'
import type { JobDoc } from '../../projectors/jobs/job.ts'
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
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { refusedReceiver } from '../../shared/infra/webhooks/outbound.ts'
import {
  acceptJobRequest,
  changeOneStream,
  type commandRequest,
  pathCalled,
  type sendCommandResponse,
} from '../command-request.ts'

const ENDPOINTS = '/v2/webhook_endpoints'

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

const createBody = z.strictObject({
  url: receiverUrl,
  enabled_events: enabledEvents.optional(),
  description: description.optional(),
})
const updateBody = z.strictObject({
  url: receiverUrl.optional(),
  enabled_events: enabledEvents.optional(),
  description: description.optional(),
  status: z.enum(['enabled', 'disabled']).optional(),
})
const replayBody = z.union([
  z.strictObject({ since: z.number().int().min(0) }),
  z.strictObject({ from_position: z.string().regex(/^\d{1,20}$/, 'must be a position, in decimal digits') }),
])
const endpointParams = z.object({
  id: z.coerce.number().int('must be an integer id').positive('must be a positive id').max(Number.MAX_SAFE_INTEGER),
})

/** How long a rotated-out secret still signs by default, as Standard Webhooks advises: a day. */
const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600

const rotateBody = z
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

/** `whsec_` and 32 random bytes in base64: the Standard Webhooks secret format. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

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

/** Decides a command on one endpoint's stream and answers the endpoint as it then stands. */
function changeEndpoint(
  rt: Runtime,
  request: Parameters<typeof commandRequest>[0],
  reply: Parameters<typeof sendCommandResponse>[0],
  endpointId: number,
  decide: (at: number) => WebhookEndpointCommand,
  /** The answer, given the endpoint's events up to and with those decided. */
  answer: (all: WebhookEndpointEvent[]) => { status: number; body: unknown },
) {
  const { account } = callerOf(request)
  return changeOneStream<WebhookEndpointEvent, WebhookEndpointState>(rt, request, reply, {
    stream: webhookEndpointStream(account.id, endpointId),
    evolve: evolveWebhookEndpointState,
    decide: (at, state) => decideWebhookEndpoint(decide(at), state),
    answer,
    // The answer is recorded (for Idempotency-Key repeats) with the secret sealed; the client gets it open.
    reveal: (body) => {
      const shown = body as { secret?: string }
      return shown?.secret === undefined ? shown : { ...shown, secret: rt.secrets.open(shown.secret) }
    },
  })
}
/** The endpoint as the answer shows it; `sealed`, a secret made by this command, shown once (opened on the way out). */

export function webhookEndpointWriteRoutes(app: App, rt: Runtime, jobs: JobQueue) {
  const rendered = (all: WebhookEndpointEvent[], sealed?: string) =>
    renderWebhookEndpoint(all.reduce(evolveWebhookEndpoint, undefined as never), sealed)

  app.post(
    ENDPOINTS,
    { schema: { body: createBody, response: { 201: webhookEndpointResource }, summary: 'Create a webhook endpoint' } },
    async (request, reply) => {
      await checkReceiver(rt, request.body.url)
      await underEndpointCap(rt, callerOf(request).account.id)
      const id = rt.ids.next()
      const secret = rt.secrets.seal(newSecret())
      const { url, enabled_events = null, description = null } = request.body
      return changeEndpoint(
        rt,
        request,
        reply,
        id,
        (at) => ({
          type: 'CreateWebhookEndpoint',
          data: { endpoint_id: id, url, enabled_events, description, secret, at },
        }),
        (all) => ({ status: 201, body: rendered(all, secret) }),
      )
    },
  )

  app.patch(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        params: endpointParams,
        body: updateBody,
        response: { 200: webhookEndpointResource },
        summary: 'Change a webhook endpoint',
      },
    },
    async (request, reply) => {
      await checkReceiver(rt, request.body.url)
      const changes = Object.fromEntries(Object.entries(request.body).filter(([, v]) => v !== undefined))
      return changeEndpoint(
        rt,
        request,
        reply,
        request.params.id,
        (at) => ({ type: 'UpdateWebhookEndpoint', data: { changes, at } }),
        (all) => ({ status: 200, body: rendered(all) }),
      )
    },
  )

  app.delete(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        params: endpointParams,
        response: { 200: deletedWebhookEndpoint },
        summary: 'Delete a webhook endpoint',
      },
    },
    async (request, reply) =>
      changeEndpoint(
        rt,
        request,
        reply,
        request.params.id,
        (at) => ({ type: 'DeleteWebhookEndpoint', data: { at } }),
        () => ({ status: 200, body: { object: 'webhook_endpoint', id: request.params.id, deleted: true } }),
      ),
  )

  app.post(
    `${ENDPOINTS}/:id/rotate_secret`,
    {
      schema: {
        params: endpointParams,
        body: rotateBody,
        response: { 200: webhookEndpointResource },
        summary: "Replace a webhook endpoint's signing secret; the previous one signs beside it for expires_in seconds",
      },
    },
    async (request, reply) => {
      const secret = rt.secrets.seal(newSecret())
      const expiresIn = request.body?.expires_in ?? DEFAULT_ROTATION_GRACE_SECONDS
      return changeEndpoint(
        rt,
        request,
        reply,
        request.params.id,
        (at) => ({ type: 'RotateWebhookSecret', data: { secret, previous_expires_at: at + expiresIn, at } }),
        (all) => ({ status: 200, body: rendered(all, secret) }),
      )
    },
  )

  app.post(
    `${ENDPOINTS}/:id/test`,
    {
      schema: {
        params: endpointParams,
        response: { 202: webhookTest },
        summary: 'Send a webhook.test message to a webhook endpoint',
      },
    },
    async (request, reply) =>
      changeEndpoint(
        rt,
        request,
        reply,
        request.params.id,
        (at) => ({ type: 'TestWebhookEndpoint', data: { at } }),
        () => ({ status: 202, body: { object: 'webhook_test', endpoint_id: request.params.id } }),
      ),
  )

  app.post(
    `${ENDPOINTS}/:id/replay`,
    {
      schema: {
        params: endpointParams,
        body: replayBody,
        response: { 202: jobResource },
        summary: 'Send again every message to a webhook endpoint from a point in history (a job)',
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const endpointId = request.params.id
      const recorded = await rt.eventStore.readStream(webhookEndpointStream(account.id, endpointId))
      const endpoint = asDomainEvents<WebhookEndpointEvent>(recorded).reduce(
        evolveWebhookEndpointState,
        undefined as never,
      )
      if (!endpoint || endpoint.deleted) throw notFound('Webhook endpoint not found')
      await noReplayRunning(rt, account.id, endpointId)
      const accepted = await acceptJobRequest(rt, jobs, request, {
        type: 'webhook_endpoints.replay',
        payload: { method: 'POST', url: pathCalled(request), body: { endpoint_id: endpointId, ...request.body } },
      })
      return accepted.send(reply)
    },
  )
}
