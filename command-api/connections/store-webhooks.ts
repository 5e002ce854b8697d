import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { FastifyReply } from 'fastify'
import { type ConnectionState, storeWebhookStream } from '../../shared/domain/connections/connection.ts'
import { isConcurrencyError } from '../../shared/domain/errors.ts'
import type { ConnectionPlatform } from '../../shared/domain/events/connection-events.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { eventId } from '../../shared/infra/id-generator.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'

/*
 * The stores' own webhooks, at each connection's `webhook_url`: the raw body
 * is checked against the platform's signature (base64 HMAC-SHA256 with the
 * connection's webhook secret), recorded once per delivery, and answered at
 * once; the orders it carries are made by a reaction (reactions/connections).
 */

/** What each platform's requests say in their headers. */
const HEADERS: Record<ConnectionPlatform, { signature: string; delivery: string; topic: string }> = {
  shopify: { signature: 'x-shopify-hmac-sha256', delivery: 'x-shopify-webhook-id', topic: 'x-shopify-topic' },
  woocommerce: {
    signature: 'x-wc-webhook-signature',
    delivery: 'x-wc-webhook-delivery-id',
    topic: 'x-wc-webhook-topic',
  },
}

/** The topics a connection records; the others are answered and ignored. */
export const ORDER_TOPICS: Record<ConnectionPlatform, readonly string[]> = {
  shopify: ['orders/create', 'orders/updated', 'orders/cancelled', 'fulfillments/create', 'fulfillments/update'],
  woocommerce: ['order.created', 'order.updated'],
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

/** Whether the signature is the body's HMAC under the secret: compared in constant time. */
function signedWith(secret: string, body: Buffer, signature: string | undefined) {
  if (!signature) return false
  const expected = createHmac('sha256', secret).update(body).digest()
  const given = Buffer.from(signature, 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const refuse = (reply: FastifyReply, status: number, details: string) =>
  reply.status(status).send({ errors: { details } })

export function storeWebhookRoutes(app: App, rt: Runtime) {
  app.register(async (scope) => {
    // The signature is over the bytes as sent: the body is kept raw.
    const raw = (_request: unknown, body: Buffer, done: (error: null, body: Buffer) => void) => done(null, body)
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, raw)
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, raw)
    scope.post(
      '/hooks/:platform/:account/:connection',
      { config: { auth: 'none' }, schema: { hide: true } },
      async (request, reply) => {
        const { platform, account, connection } = request.params as Record<string, string>
        const accountId = Number(account)
        const stored =
          Number.isSafeInteger(accountId) && Number.isSafeInteger(Number(connection))
            ? await rt.readStore.get<ConnectionState>(collections.connections.name, accountId, Number(connection))
            : undefined
        const c = stored?.doc
        if (!c || c.deleted || c.platform !== platform) return refuse(reply, 404, 'No such connection')
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
        const names = HEADERS[c.platform]
        // WooCommerce pings a new webhook's address with a form body and no signature.
        if (c.platform === 'woocommerce' && /^webhook_id=\d+$/.test(body.toString('utf8').trim()))
          return reply.status(200).send({ received: true })
        if (!signedWith(rt.secrets.open(c.webhook_secret), body, header(request.headers[names.signature])))
          return refuse(
            reply,
            401,
            `The ${names.signature} header is not this body's signature with the webhook secret`,
          )
        const topic = header(request.headers[names.topic]) ?? ''
        if (!ORDER_TOPICS[c.platform].includes(topic)) return reply.status(200).send({ received: true, ignored: topic })
        const delivery =
          header(request.headers[names.delivery]) ?? createHash('sha256').update(body).digest('base64url')
        const now = rt.clock.now()
        try {
          await rt.eventStore.append([
            {
              stream: storeWebhookStream(accountId, c.id, delivery),
              expected: 'no_stream',
              events: [
                {
                  id: eventId(now.getTime()),
                  type: 'StoreWebhookReceived',
                  data: {
                    connection_id: c.id,
                    delivery_id: delivery,
                    topic,
                    body: body.toString('utf8'),
                    at: toUnixSeconds(now),
                  },
                  metadata: { accountId, correlationId: request.id, source: 'api', recordedAt: now.getTime() },
                },
              ],
            },
          ])
        } catch (error) {
          // A delivery seen before: answered as the first was, recorded once.
          if (!isConcurrencyError(error)) throw error
          return reply.status(200).send({ received: true, duplicate: true })
        }
        return reply.status(200).send({ received: true })
      },
    )
  })
}
