import { z } from 'zod'
import { renderConnection } from '../../projectors/connections/connection.ts'
import { connectionResource, jobResource } from '../../projectors/resources/schemas.ts'
import {
  type ConnectionEvent,
  type ConnectionState,
  connectionStream,
  decideConnection,
  evolveConnection,
} from '../../shared/domain/connections/connection.ts'
import { validationError } from '../../shared/domain/errors.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { publicUrlOf } from '../../shared/infra/http/public-url.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { refusedReceiver } from '../../shared/infra/webhooks/outbound.ts'
import {
  changeOneStream,
  commandRequest,
  pathCalled,
  sendAcceptedJob,
  sendCommandResponse,
} from '../command-request.ts'
import { backfillConnection, disconnectStore } from '../../commands/connections/change.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import { dateTime } from '../../shared/domain/fields.ts'

/*
 * A merchant's store connections: `POST /v2/connections` with the store and
 * its credentials (sealed at rest, never answered), then the store's own
 * webhooks bring its orders in (storeWebhookRoutes). docs/connectors.md.
 */

const secret = z.string().trim().min(1, 'must not be empty').max(1000)
const shopDomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]*(\.[a-z0-9-]+)+$/, 'must be a host name, such as acme.myshopify.com')
const storeUrl = z.url({ protocol: /^https?$/, error: 'must be an https URL' }).transform((u) => u.replace(/\/+$/, ''))

const created = z.discriminatedUnion(
  'platform',
  [
    z.strictObject({
      platform: z.literal('shopify'),
      shop_domain: shopDomain,
      access_token: secret,
      webhook_secret: secret,
    }),
    z.strictObject({
      platform: z.literal('woocommerce'),
      store_url: storeUrl,
      consumer_key: secret,
      consumer_secret: secret,
      webhook_secret: secret,
      complete_when_delivered: z.boolean().optional(),
    }),
  ],
  { error: 'must be shopify or woocommerce' },
)
const changes = z
  .strictObject({
    access_token: secret,
    consumer_key: secret,
    consumer_secret: secret,
    webhook_secret: secret,
    complete_when_delivered: z.boolean(),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must change a credential, webhook_secret or complete_when_delivered')
const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) })

/** A store is held to the webhook receivers' rules: https and public, unless the operator allows private ones. */
async function checkStore(rt: Runtime, url: string, field: string) {
  const allowPrivate = rt.config.SHIPLOG_CONNECTOR_ALLOW_PRIVATE
  if (!allowPrivate && !url.startsWith('https://'))
    throw validationError(`The ${field} must use https`, { [field]: 'must use https' })
  const refused = await refusedReceiver(url, allowPrivate)
  if (refused)
    throw validationError(`The ${field} is refused: ${refused.reason}`, { [field]: `is refused: ${refused.reason}` })
}

export function connectionWriteRoutes(app: App, rt: Runtime, jobs: JobQueue) {
  const change = (
    request: Parameters<typeof changeOneStream>[1],
    reply: Parameters<typeof changeOneStream>[2],
    id: number,
    decide: (at: number, state: ConnectionState | undefined) => ConnectionEvent[],
    answer: (state: ConnectionState) => { status: number; body: unknown },
  ) => {
    const { account } = callerOf(request)
    return changeOneStream<ConnectionEvent, ConnectionState>(rt, request, reply, {
      stream: connectionStream(account.id, id),
      evolve: evolveConnection,
      decide,
      answer: (all) => answer(all.reduce(evolveConnection, undefined as never)),
    })
  }

  app.post(
    '/v2/connections',
    {
      schema: {
        body: created,
        response: { 201: connectionResource },
        summary: 'Connect a Shopify or WooCommerce store: its orders come in by its own webhooks',
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const body = request.body
      const shop = body.platform === 'shopify' ? `https://${body.shop_domain}` : body.store_url
      await checkStore(rt, shop, body.platform === 'shopify' ? 'shop_domain' : 'store_url')
      const credentials: Record<string, string> =
        body.platform === 'shopify'
          ? { access_token: rt.secrets.seal(body.access_token) }
          : { consumer_key: rt.secrets.seal(body.consumer_key), consumer_secret: rt.secrets.seal(body.consumer_secret) }
      const id = rt.ids.next()
      const data = {
        connection_id: id,
        platform: body.platform,
        shop,
        credentials,
        webhook_secret: rt.secrets.seal(body.webhook_secret),
        complete_when_delivered: body.platform === 'woocommerce' ? (body.complete_when_delivered ?? true) : false,
      }
      return change(
        request,
        reply,
        id,
        (at, state) => decideConnection({ type: 'CreateConnection', data: { ...data, at } }, state),
        (state) => ({ status: 201, body: renderConnection(account.id, state, publicUrlOf(rt, request)) }),
      )
    },
  )

  app.patch(
    '/v2/connections/:id',
    {
      schema: {
        params,
        body: changes,
        response: { 200: connectionResource },
        summary: "Change a connection's credentials or settings; new credentials make it active again",
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const { webhook_secret, complete_when_delivered, ...given } = request.body
      const sealed = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, rt.secrets.seal(v)]))
      return change(
        request,
        reply,
        request.params.id,
        (at, state) => {
          if (state && Object.keys(sealed).some((k) => !(k in state.credentials)))
            throw validationError(`A ${state.platform} connection has no such credential`, {
              [Object.keys(sealed).find((k) => !(k in state.credentials))!]: `is not a ${state.platform} credential`,
            })
          const credentials = Object.keys(sealed).length > 0 ? { ...state?.credentials, ...sealed } : undefined
          return decideConnection(
            {
              type: 'UpdateConnection',
              data: {
                changes: {
                  ...(credentials ? { credentials, status: 'active' as const } : {}),
                  ...(webhook_secret ? { webhook_secret: rt.secrets.seal(webhook_secret) } : {}),
                  ...(complete_when_delivered === undefined ? {} : { complete_when_delivered }),
                },
                at,
              },
            },
            state,
          )
        },
        (state) => ({ status: 200, body: renderConnection(account.id, state, publicUrlOf(rt, request)) }),
      )
    },
  )

  app.post(
    '/v2/connections/:id/backfill',
    {
      schema: {
        params,
        body: z.strictObject({ since: dateTime }),
        response: { 202: jobResource },
        summary: "Bring the store's orders created since a time in, as a job: each as POST /v2/orders would",
      },
    },
    async (request, reply) => {
      const accepted = await backfillConnection(
        rt,
        jobs,
        commandRequest(request),
        request.params.id,
        request.body.since,
        pathCalled(request),
        request.log,
      )
      return sendAcceptedJob(reply, accepted)
    },
  )

  app.delete(
    '/v2/connections/:id',
    {
      schema: {
        params,
        response: {
          200: z.object({ object: z.literal('connection'), id: z.number().int(), deleted: z.literal(true) }),
        },
        summary: 'Disconnect a store: its orders stop coming in; the parcels already here keep being tracked',
      },
    },
    async (request, reply) =>
      sendCommandResponse(reply, await disconnectStore(rt, commandRequest(request), request.params.id)),
  )
}
