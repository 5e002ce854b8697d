import t from 'tap'
import { call, createAccountWithCli, serviceEnvironment, spawnServer } from '../support/process.ts'
import { until } from '../support/progress.ts'
import { SHOPIFY_TOKEN, startLoopbackStore } from '../support/stores.ts'

/*
 * A store connection's work survives a kill -9: a backfill stopped midway
 * resumes and records each order once; a write-back stopped among its
 * retries writes the store's fulfillment event once. The store is a loopback
 * server answering as Shopify's Admin GraphQL API does.
 */

const DAY = 86_400

t.test('a backfill and a write-back killed midway finish once each', async (t) => {
  const store = await startLoopbackStore(t)
  store.delayMs = 100
  store.shopifyOrders = Array.from({ length: 150 }, (_, i) => ({
    legacyResourceId: String(5000 + i),
    name: `#${2000 + i}`,
    email: `c${i}@example.com`,
    createdAt: '2026-11-20T10:00:00Z',
    cancelledAt: null,
    shippingAddress: { city: 'Paris', zip: '75002', countryCodeV2: 'FR' },
    lineItems: { nodes: [] },
    fulfillments: [
      {
        legacyResourceId: String(7000 + i),
        status: 'SUCCESS',
        trackingInfo: [{ company: 'UPS', number: `1ZCRASH${String(i).padStart(6, '0')}` }],
      },
    ],
  }))
  const env = await serviceEnvironment(t, {
    SHIPLOG_CONNECTOR_ALLOW_PRIVATE: 'true',
    SHIPLOG_SHOPIFY_API_URL: store.url,
  })
  const account = createAccountWithCli(env)
  let server = await spawnServer(env)
  t.teardown(() => server.kill('SIGKILL'))
  const send = async (path: string, method = 'GET', body?: unknown) =>
    (
      await call(server.url, account.private_key, path, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json() as Promise<any>
  const connection = await send('/v2/connections', 'POST', {
    platform: 'shopify',
    shop_domain: 'acme.myshopify.com',
    access_token: SHOPIFY_TOKEN,
    webhook_secret: 'secret',
  })
  const job = await send(`/v2/connections/${connection.id}/backfill`, 'POST', { since: '2026-11-01T00:00:00Z' })

  // Killed once the second page is asked for: some orders are in, most are not.
  await until(
    async () => store.calls.shopify,
    (n) => n >= 2,
    30_000,
  )
  await server.kill('SIGKILL')
  server = await spawnServer(env)
  const done = await until(
    () => send(`/v2/jobs/${job.id}`),
    (j) => j.status === 'completed',
    90_000,
  )
  t.equal(done.results.length, 150, 'each order recorded once in the results')
  const numbers = new Set(done.results.map((r: { body: { order_number: string } }) => r.body.order_number))
  t.equal(numbers.size, 150, 'no order twice')

  // A delivery, the store throttling the write-back twice; killed among the retries.
  store.failNext.shopify = 2
  const now = Math.floor(Date.now() / 1000)
  await send('/v2/trackers/events', 'POST', {
    events: [{ tracking_number: '1ZCRASH000007', event_type_code: 'delivered', happened_at: now - DAY / 24 }],
  })
  await until(
    async () => store.failNext.shopify,
    (n) => n < 2,
    30_000,
  )
  await server.kill('SIGKILL')
  server = await spawnServer(env)
  const events = await until(
    async () => store.fulfillmentEvents.get('7007') ?? [],
    (e) => e.length > 0,
    90_000,
  )
  t.same(
    events.map((e) => e.status),
    ['DELIVERED'],
    'written once',
  )
})
