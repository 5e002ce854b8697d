import { createHmac } from 'node:crypto'
import t from 'tap'
import { waitForJob } from '../support/jobs.ts'
import { until } from '../support/progress.ts'
import { recordTrackingEvents, startTestServer, type TestServer } from '../support/server.ts'
import { SHOPIFY_TOKEN, startLoopbackStore, WOO_KEY, WOO_SECRET } from '../support/stores.ts'

/*
 * Store connections through the public API, and the stores' own webhooks:
 * Shopify's and WooCommerce's signed order webhooks, in their documented
 * shapes, posted to the connection's webhook_url as each platform does.
 */

const start = (t: Parameters<typeof startTestServer>[0]) =>
  startTestServer(t, { env: { SHIPLOG_CONNECTOR_ALLOW_PRIVATE: 'true' } })

const shopifyConnection = {
  platform: 'shopify',
  shop_domain: 'acme.myshopify.com',
  access_token: 'shpat_0123456789abcdef',
  webhook_secret: 'shopify-webhook-secret',
}

/** A Shopify orders/create payload: the fields shiplog reads, as the Admin API documents them. */
const shopifyOrder = {
  id: 820982911946154500,
  name: '#1001',
  order_number: 1001,
  email: 'jon@example.com',
  created_at: '2026-11-27T10:15:00-05:00',
  cancelled_at: null,
  phone: null,
  customer: { id: 115310627314723950, email: 'jon@example.com', first_name: 'Jon', last_name: 'Snow' },
  shipping_address: {
    first_name: 'Jon',
    last_name: 'Snow',
    address1: '123 Amoebobacterieae St',
    address2: '',
    city: 'Ottawa',
    province: 'Ontario',
    province_code: 'ON',
    zip: 'K2P0V6',
    country: 'Canada',
    country_code: 'CA',
    company: null,
    phone: '555-625-1199',
  },
  line_items: [
    {
      id: 866550311766439000,
      title: 'IPod Nano - 8GB',
      name: 'IPod Nano - 8GB - Pink',
      sku: 'IPOD2008PINK',
      quantity: 1,
    },
  ],
  fulfillments: [
    {
      id: 255858046,
      order_id: 820982911946154500,
      status: 'success',
      tracking_company: 'UPS',
      tracking_number: '1Z2345',
      tracking_numbers: ['1Z999AA10123456784'],
      tracking_urls: ['https://www.ups.com/track?tracknum=1Z999AA10123456784'],
    },
  ],
}

const signature = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64')

async function deliver(url: string, headers: Record<string, string>, body: string, contentType = 'application/json') {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const shopifyHeaders = (body: string, delivery: string, secret = shopifyConnection.webhook_secret) => ({
  'x-shopify-topic': 'orders/create',
  'x-shopify-hmac-sha256': signature(secret, body),
  'x-shopify-shop-domain': 'acme.myshopify.com',
  'x-shopify-webhook-id': delivery,
})

const orderNamed = (server: TestServer, number: string) =>
  until(
    async () =>
      (
        await server.request(
          'GET',
          `/v2/orders?order_number=${encodeURIComponent(number)}&expand[]=fulfillments.trackers.carrier&expand[]=shipping_address`,
        )
      ).body.data,
    (data: any[]) => data.length === 1,
  )

t.test('a connection is created, read, changed and deleted; its secrets are never answered', async (t) => {
  const server = await start(t)
  const created = await server.request('POST', '/v2/connections', { body: shopifyConnection })
  t.equal(created.status, 201)
  t.match(created.body, {
    object: 'connection',
    platform: 'shopify',
    shop_domain: 'acme.myshopify.com',
    status: 'active',
    webhook_url: new RegExp(`/hooks/shopify/${server.accountId}/${created.body.id}$`),
  })
  t.notMatch(JSON.stringify(created.body), /shpat_|shopify-webhook-secret/, 'no secret in the answer')
  const id = created.body.id
  t.same(
    (await server.request('GET', '/v2/connections')).body.data.map((c: { id: number }) => c.id),
    [id],
  )
  t.equal((await server.request('GET', `/v2/connections/${id}`)).body.id, id)
  const other = await server.newAccount()
  t.equal((await server.request('GET', `/v2/connections/${id}`, { key: other.private_key })).status, 404)

  const wrong = await server.request('POST', '/v2/connections', { body: { platform: 'magento', shop_domain: 'x' } })
  t.equal(wrong.status, 400)
  t.match(JSON.stringify(wrong.body), /platform/)
  const missing = await server.request('POST', '/v2/connections', {
    body: { platform: 'woocommerce', store_url: 'https://shop.example.com', consumer_key: 'ck_1', webhook_secret: 's' },
  })
  t.equal(missing.status, 400)
  t.match(JSON.stringify(missing.body), /consumer_secret/)

  const patched = await server.request('PATCH', `/v2/connections/${id}`, { body: { access_token: 'shpat_new' } })
  t.equal(patched.status, 200)
  const notShopify = await server.request('PATCH', `/v2/connections/${id}`, { body: { consumer_key: 'ck_x' } })
  t.equal(notShopify.status, 400, 'a Shopify connection has no consumer key')
  t.equal((await server.request('DELETE', `/v2/connections/${id}`)).status, 200)
  t.equal((await server.request('GET', `/v2/connections/${id}`)).status, 404)
})

t.test('a store must be https and public unless the operator allows private ones', async (t) => {
  const server = await startTestServer(t)
  const http = await server.request('POST', '/v2/connections', {
    body: {
      platform: 'woocommerce',
      store_url: 'http://shop.example.com',
      consumer_key: 'ck',
      consumer_secret: 'cs',
      webhook_secret: 's',
    },
  })
  t.equal(http.status, 400)
  t.match(JSON.stringify(http.body), /store_url/)
  const loopback = await server.request('POST', '/v2/connections', {
    body: {
      platform: 'woocommerce',
      store_url: 'https://127.0.0.1',
      consumer_key: 'ck',
      consumer_secret: 'cs',
      webhook_secret: 's',
    },
  })
  t.equal(loopback.status, 400)
  t.match(JSON.stringify(loopback.body), /store_url/)
})

t.test("Shopify's signed order webhook brings the order in, once; a forged one records nothing", async (t) => {
  const server = await start(t)
  const connection = (await server.request('POST', '/v2/connections', { body: shopifyConnection })).body
  const body = JSON.stringify(shopifyOrder)

  const forged = await deliver(connection.webhook_url, shopifyHeaders(body, 'd-forged', 'not the secret'), body)
  t.equal(forged.status, 401)
  t.match(forged.body, { errors: { details: /x-shopify-hmac-sha256/ } })

  const first = await deliver(connection.webhook_url, shopifyHeaders(body, 'd-1'), body)
  t.same(first, { status: 200, body: { received: true } })
  const again = await deliver(connection.webhook_url, shopifyHeaders(body, 'd-1'), body)
  t.same(again, { status: 200, body: { received: true, duplicate: true } }, 'the same delivery again records nothing')

  const [order] = await orderNamed(server, '#1001')
  t.match(order, {
    order_number: '#1001',
    merchant_id: '820982911946154500',
    email: 'jon@example.com',
    first_name: 'Jon',
    last_name: 'Snow',
    shipping_address: { object: 'address', city: 'Ottawa', zip: 'K2P0V6', state: 'ON', country_code: 'CA' },
  })
  const tracker = order.fulfillments.data[0].trackers.data[0]
  t.match(tracker, { tracking_number: '1Z999AA10123456784', carrier: { code: 'ups' } })
  const history = await server.request('GET', `/v2/orders/${order.id}/history?limit=100`)
  t.equal(
    history.body.data.filter((e: { type: string }) => e.type === 'OrderCreated').length,
    1,
    'one order, whatever the deliveries',
  )
  const orders = await server.request('GET', '/v2/orders')
  t.equal(orders.body.data.length, 1, 'the forged delivery made nothing')
})

t.test("WooCommerce's ping is answered, and its order webhook brings the order and its shipments in", async (t) => {
  const server = await start(t)
  const connection = (
    await server.request('POST', '/v2/connections', {
      body: {
        platform: 'woocommerce',
        store_url: 'https://shop.example.com',
        consumer_key: 'ck_1234',
        consumer_secret: 'cs_5678',
        webhook_secret: 'woo-secret',
      },
    })
  ).body
  t.match(connection, { platform: 'woocommerce', store_url: 'https://shop.example.com', complete_when_delivered: true })
  const ping = await deliver(connection.webhook_url, {}, 'webhook_id=3', 'application/x-www-form-urlencoded')
  t.equal(ping.status, 200)

  const order = {
    id: 4750,
    number: '4750',
    status: 'processing',
    date_created_gmt: '2026-11-27T15:54:40',
    billing: { first_name: 'Ana', last_name: 'Lima', email: 'ana@example.com', phone: '+33612345678' },
    shipping: {
      first_name: 'Ana',
      last_name: 'Lima',
      company: '',
      address_1: '12 rue de la Paix',
      address_2: '',
      city: 'Lyon',
      state: '',
      postcode: '69002',
      country: 'FR',
    },
    line_items: [{ id: 315, name: 'Blue mug', sku: 'MUG-B', quantity: 2 }],
    meta_data: [
      {
        id: 5,
        key: '_wc_shipment_tracking_items',
        value: [{ tracking_provider: 'colissimo', tracking_number: '6A12345678901', tracking_id: 'a1b2c3' }],
      },
    ],
  }
  const body = JSON.stringify(order)
  const delivered = await deliver(
    connection.webhook_url,
    {
      'x-wc-webhook-topic': 'order.created',
      'x-wc-webhook-signature': signature('woo-secret', body),
      'x-wc-webhook-delivery-id': '36e520ebabc2fa725092ff4a47acedf2',
    },
    body,
  )
  t.equal(delivered.status, 200)
  const [found] = await orderNamed(server, '4750')
  t.match(found, {
    merchant_id: '4750',
    email: 'ana@example.com',
    shipping_address: { city: 'Lyon', country_code: 'FR' },
  })
  t.match(found.fulfillments.data[0].trackers.data[0], {
    tracking_number: '6A12345678901',
    carrier: { code: 'colissimo' },
  })
})

t.test(
  'each status change is written back to Shopify once, through a throttle; a refused token stops it',
  async (t) => {
    const store = await startLoopbackStore(t)
    const server = await startTestServer(t, {
      env: { SHIPLOG_CONNECTOR_ALLOW_PRIVATE: 'true', SHIPLOG_SHOPIFY_API_URL: store.url },
    })
    const connection = (
      await server.request('POST', '/v2/connections', { body: { ...shopifyConnection, access_token: SHOPIFY_TOKEN } })
    ).body
    const body = JSON.stringify(shopifyOrder)
    await deliver(connection.webhook_url, shopifyHeaders(body, 'w-1'), body)
    await orderNamed(server, '#1001')
    const now = Math.floor(Date.now() / 1000)
    await recordTrackingEvents(server, [
      { tracking_number: '1Z999AA10123456784', event_type_code: 'transit', happened_at: now - 7200 },
    ])
    const events = () => store.fulfillmentEvents.get('255858046') ?? []
    await until(
      async () => events().length,
      (n) => n === 1,
    )
    store.failNext.shopify = 1
    await recordTrackingEvents(server, [
      { tracking_number: '1Z999AA10123456784', event_type_code: 'delivered', happened_at: now - 60 },
    ])
    await until(
      async () => events().length,
      (n) => n === 2,
    )
    t.same(events(), [
      { status: 'IN_TRANSIT', happenedAt: new Date((now - 7200) * 1000).toISOString() },
      { status: 'DELIVERED', happenedAt: new Date((now - 60) * 1000).toISOString() },
    ])
    t.ok(store.calls.shopify >= 5, 'read first, written once, throttled once and tried again')

    store.refuse = true
    const second = JSON.stringify({
      ...shopifyOrder,
      id: 1,
      name: '#1002',
      fulfillments: [{ ...shopifyOrder.fulfillments[0]!, id: 7, tracking_numbers: ['1Z999AA10123456785'] }],
    })
    await deliver(connection.webhook_url, shopifyHeaders(second, 'w-2'), second)
    await orderNamed(server, '#1002')
    await recordTrackingEvents(server, [
      { tracking_number: '1Z999AA10123456785', event_type_code: 'transit', happened_at: now - 60 },
    ])
    const refused = await until(
      async () => (await server.request('GET', `/v2/connections/${connection.id}`)).body,
      (c) => c.status === 'unauthorized',
    )
    t.equal(refused.status, 'unauthorized', 'the connection says the store refused the token')
    t.equal(store.fulfillmentEvents.get('7'), undefined, 'nothing written')
  },
)

t.test('WooCommerce gets a note per status change, once, and the order completed when delivered', async (t) => {
  const store = await startLoopbackStore(t)
  const server = await start(t)
  const connection = (
    await server.request('POST', '/v2/connections', {
      body: {
        platform: 'woocommerce',
        store_url: store.url,
        consumer_key: WOO_KEY,
        consumer_secret: WOO_SECRET,
        webhook_secret: 'woo-secret',
      },
    })
  ).body
  const order = {
    id: 4751,
    number: '4751',
    status: 'processing',
    billing: { first_name: 'Ana', last_name: 'Lima', email: 'ana@example.com' },
    shipping: { first_name: 'Ana', last_name: 'Lima', city: 'Lyon', postcode: '69002', country: 'FR' },
    line_items: [{ id: 316, name: 'Blue mug', quantity: 1 }],
    meta_data: [
      {
        key: '_wc_shipment_tracking_items',
        value: [{ tracking_provider: 'colissimo', tracking_number: '6A12345678902', tracking_id: 'x1' }],
      },
    ],
  }
  const body = JSON.stringify(order)
  await deliver(
    connection.webhook_url,
    {
      'x-wc-webhook-topic': 'order.created',
      'x-wc-webhook-signature': signature('woo-secret', body),
      'x-wc-webhook-delivery-id': 'woo-d-1',
    },
    body,
  )
  await orderNamed(server, '4751')
  store.failNext.woocommerce = 1
  const now = Math.floor(Date.now() / 1000)
  await recordTrackingEvents(server, [
    { tracking_number: '6A12345678902', event_type_code: 'delivered', happened_at: now - 60 },
  ])
  await until(
    async () => store.completed.length,
    (n) => n === 1,
  )
  t.same(store.notes.get('4751'), [
    `shiplog: parcel 6A12345678902 (Colissimo) is delivered, ${new Date((now - 60) * 1000).toISOString()}`,
  ])
  t.same(store.completed, ['4751'], 'every parcel delivered: the order is completed')
})

t.test('a backfill pages through the store’s past orders, as a job, on either platform', async (t) => {
  const store = await startLoopbackStore(t)
  const server = await startTestServer(t, {
    env: { SHIPLOG_CONNECTOR_ALLOW_PRIVATE: 'true', SHIPLOG_SHOPIFY_API_URL: store.url },
  })
  // 120 Shopify orders (three pages of 50), as its GraphQL API lists them.
  store.shopifyOrders = Array.from({ length: 120 }, (_, i) => ({
    legacyResourceId: String(5000 + i),
    name: `#${2000 + i}`,
    email: `c${i}@example.com`,
    createdAt: '2026-11-20T10:00:00Z',
    cancelledAt: null,
    customer: { firstName: 'Cam', lastName: `N${i}`, email: `c${i}@example.com` },
    shippingAddress: { city: 'Paris', zip: '75002', countryCodeV2: 'FR', provinceCode: null },
    lineItems: { nodes: [{ id: `gid://shopify/LineItem/${9000 + i}`, name: 'Mug', sku: 'MUG', quantity: 1 }] },
    fulfillments: [
      {
        legacyResourceId: String(7000 + i),
        status: 'SUCCESS',
        trackingInfo: [{ company: 'Colissimo', number: `6A${String(i).padStart(11, '0')}` }],
      },
    ],
  }))
  const shopify = (
    await server.request('POST', '/v2/connections', { body: { ...shopifyConnection, access_token: SHOPIFY_TOKEN } })
  ).body
  const accepted = await server.request('POST', `/v2/connections/${shopify.id}/backfill`, {
    body: { since: '2026-11-01T00:00:00Z' },
  })
  t.equal(accepted.status, 202)
  const { job } = await waitForJob(server, accepted.body.id)
  t.equal(job.status, 'completed')
  t.equal(job.results.length, 120, 'three pages of 50')
  t.ok(
    job.results.every((r: { status: number }) => r.status === 201),
    'each order created',
  )
  const last = await orderNamed(server, '#2119')
  t.match(last[0].fulfillments.data[0].trackers.data[0], {
    tracking_number: '6A00000000119',
    carrier: { code: 'colissimo' },
  })

  // 150 WooCommerce orders: two pages of 100.
  store.wooOrders = Array.from({ length: 150 }, (_, i) => ({
    id: 8000 + i,
    number: String(8000 + i),
    billing: { email: `w${i}@example.com`, first_name: 'Wu' },
    shipping: { city: 'Lyon', postcode: '69002', country: 'FR' },
    line_items: [{ id: 100 + i, name: 'Tea towel', quantity: 1 }],
  }))
  const woo = (
    await server.request('POST', '/v2/connections', {
      body: {
        platform: 'woocommerce',
        store_url: store.url,
        consumer_key: WOO_KEY,
        consumer_secret: WOO_SECRET,
        webhook_secret: 's',
      },
    })
  ).body
  const wooJob = await server.request('POST', `/v2/connections/${woo.id}/backfill`, { body: { since: 1_790_000_000 } })
  const wooDone = (await waitForJob(server, wooJob.body.id)).job
  t.equal(wooDone.status, 'completed')
  t.equal(wooDone.results.length, 150, 'two pages of 100')
  await orderNamed(server, '8149')

  // A Shopify fulfillment's own webhook names its order by id: the order is read from the store.
  store.shopifyOrders.push({
    ...store.shopifyOrders[0]!,
    legacyResourceId: '6001',
    name: '#3001',
    fulfillments: [
      { legacyResourceId: '7999', status: 'SUCCESS', trackingInfo: [{ company: 'UPS', number: '1Z999AA10123456799' }] },
    ],
  })
  const fulfillment = JSON.stringify({
    id: 7999,
    order_id: 6001,
    status: 'success',
    tracking_company: 'UPS',
    tracking_numbers: ['1Z999AA10123456799'],
  })
  const headers = { ...shopifyHeaders(fulfillment, 'f-1'), 'x-shopify-topic': 'fulfillments/create' }
  t.equal((await deliver(shopify.webhook_url, headers, fulfillment)).status, 200)
  const [fromFulfillment] = await orderNamed(server, '#3001')
  t.match(fromFulfillment.fulfillments.data[0].trackers.data[0], {
    tracking_number: '1Z999AA10123456799',
    carrier: { code: 'ups' },
  })
  const missing = await server.request('POST', '/v2/connections/999/backfill', { body: { since: 1 } })
  t.equal(missing.status, 404)
})
