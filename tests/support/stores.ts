import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

/*
 * A store on loopback answering as Shopify's Admin GraphQL API and
 * WooCommerce's REST API v3 do (their documented shapes; never the real
 * stores): fulfillment events read and created, order notes read and
 * written, an order completed. It can refuse the credentials, or answer
 * 503 or Shopify's THROTTLED a number of times first.
 */

export const SHOPIFY_TOKEN = 'shpat_loopback'
export const WOO_KEY = 'ck_loopback'
export const WOO_SECRET = 'cs_loopback'

export interface LoopbackStore {
  url: string
  /** Fulfillment events by fulfillment id, as Shopify keeps them. */
  fulfillmentEvents: Map<string, { status: string; happenedAt: string }[]>
  /** Order notes by order id, and the orders set completed. */
  notes: Map<string, string[]>
  completed: string[]
  /** Requests to answer 503 (or THROTTLED on Shopify), before answering again. */
  failNext: { shopify: number; woocommerce: number }
  /** Refuse every credential. */
  refuse: boolean
  calls: { shopify: number; woocommerce: number }
  /** Past orders, as Shopify's GraphQL `orders` and WooCommerce's `GET /orders` list them, oldest first. */
  shopifyOrders: Record<string, unknown>[]
  wooOrders: Record<string, unknown>[]
  /** Milliseconds each answer waits: a store slow enough to be stopped midway. */
  delayMs: number
}

const read = async (request: IncomingMessage) => {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}

export async function startLoopbackStore(t: Test): Promise<LoopbackStore> {
  const store: LoopbackStore = {
    url: '',
    fulfillmentEvents: new Map(),
    notes: new Map(),
    completed: [],
    failNext: { shopify: 0, woocommerce: 0 },
    refuse: false,
    calls: { shopify: 0, woocommerce: 0 },
    shopifyOrders: [],
    wooOrders: [],
    delayMs: 0,
  }
  const server = createServer(async (request, response) => {
    const body = await read(request)
    if (store.delayMs > 0) await new Promise((r) => setTimeout(r, store.delayMs))
    const send = (status: number, json: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(json))
    }
    const path = request.url ?? ''
    if (path.startsWith('/admin/api/') && path.endsWith('/graphql.json')) {
      store.calls.shopify++
      if (store.refuse || request.headers['x-shopify-access-token'] !== SHOPIFY_TOKEN)
        return send(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' })
      const cost = {
        requestedQueryCost: 10,
        actualQueryCost: 10,
        throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1990, restoreRate: 100 },
      }
      if (store.failNext.shopify > 0) {
        store.failNext.shopify--
        return send(200, {
          errors: [
            {
              message: 'Throttled',
              extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' },
            },
          ],
          extensions: { cost: { ...cost, throttleStatus: { ...cost.throttleStatus, currentlyAvailable: 0 } } },
        })
      }
      const { query, variables } = JSON.parse(body) as { query: string; variables: Record<string, any> }
      if (query.includes('fulfillmentEventCreate')) {
        const input = variables.fulfillmentEvent as { fulfillmentId: string; status: string; happenedAt: string }
        const id = input.fulfillmentId.replace('gid://shopify/Fulfillment/', '')
        const events = store.fulfillmentEvents.get(id) ?? []
        events.push({ status: input.status, happenedAt: input.happenedAt })
        store.fulfillmentEvents.set(id, events)
        return send(200, {
          data: {
            fulfillmentEventCreate: {
              fulfillmentEvent: { id: `gid://shopify/FulfillmentEvent/${events.length}`, status: input.status },
              userErrors: [],
            },
          },
          extensions: { cost },
        })
      }
      if (query.includes('order(id:')) {
        const id = String(variables.id).replace('gid://shopify/Order/', '')
        const order = store.shopifyOrders.find((o) => o.legacyResourceId === id) ?? null
        return send(200, { data: { order }, extensions: { cost } })
      }
      if (query.includes('orders(')) {
        // 50 a page; the cursor is the position of the page's last order.
        const from = variables.cursor ? Number(variables.cursor) + 1 : 0
        const nodes = store.shopifyOrders.slice(from, from + 50)
        const end = from + nodes.length - 1
        return send(200, {
          data: {
            orders: {
              nodes,
              pageInfo: { hasNextPage: end + 1 < store.shopifyOrders.length, endCursor: String(end) },
            },
          },
          extensions: { cost },
        })
      }
      const id = String(variables.id).replace('gid://shopify/Fulfillment/', '')
      const nodes = store.fulfillmentEvents.get(id) ?? []
      return send(200, { data: { fulfillment: { events: { nodes } } }, extensions: { cost } })
    }
    const list = /^\/wp-json\/wc\/v3\/orders\?(.*)$/.exec(path)
    if (list) {
      store.calls.woocommerce++
      if (request.headers.authorization !== `Basic ${Buffer.from(`${WOO_KEY}:${WOO_SECRET}`).toString('base64')}`)
        return send(401, { code: 'woocommerce_rest_cannot_view', message: 'Sorry, you cannot list resources.' })
      const query = new URLSearchParams(list[1])
      const perPage = Number(query.get('per_page') ?? 10)
      const page = Number(query.get('page') ?? 1)
      response.setHeader('x-wp-totalpages', String(Math.max(1, Math.ceil(store.wooOrders.length / perPage))))
      response.setHeader('x-wp-total', String(store.wooOrders.length))
      return send(200, store.wooOrders.slice((page - 1) * perPage, page * perPage))
    }
    const woo = /^\/wp-json\/wc\/v3\/orders\/([^/]+)(\/notes)?$/.exec(path)
    if (woo) {
      store.calls.woocommerce++
      const expected = `Basic ${Buffer.from(`${WOO_KEY}:${WOO_SECRET}`).toString('base64')}`
      if (store.refuse || request.headers.authorization !== expected)
        return send(401, {
          code: 'woocommerce_rest_cannot_view',
          message: 'Sorry, you cannot list resources.',
          data: { status: 401 },
        })
      if (store.failNext.woocommerce > 0) {
        store.failNext.woocommerce--
        return send(503, { code: 'unavailable', message: 'Service unavailable' })
      }
      const [, orderId, notes] = woo as unknown as [string, string, string | undefined]
      if (notes && request.method === 'GET')
        return send(
          200,
          (store.notes.get(orderId) ?? []).map((note, i) => ({ id: i + 1, note, customer_note: false })),
        )
      if (notes && request.method === 'POST') {
        const { note } = JSON.parse(body) as { note: string }
        store.notes.set(orderId, [...(store.notes.get(orderId) ?? []), note])
        return send(201, { id: store.notes.get(orderId)!.length, note, customer_note: false })
      }
      if (request.method === 'PUT') {
        store.completed.push(orderId)
        return send(200, { id: Number(orderId), status: 'completed' })
      }
    }
    send(404, { message: 'Not Found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  store.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return store
}
