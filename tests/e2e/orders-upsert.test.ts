import t from 'tap'
import { waitForJob } from '../support/jobs.ts'
import { postTrackers, readAfter, startTestServer, type TestServer } from '../support/server.ts'

/** What a store plugin sends on every save of an order: 3 line items, 1 fulfillment, 1 tracker. */
const storeOrder = (overrides: Record<string, unknown> = {}) => ({
  merchant_id: 'shop-1001',
  order_number: 'W-1001',
  email: 'jo@example.com',
  first_name: 'Jo',
  ordered_at: '2026-11-20T10:00:00Z',
  language_code: 'fr',
  custom_variables: { channel: 'web' },
  shipping_address: { address1: '1 rue de la Paix', city: 'Paris', zip: '75002', country: 'fr' },
  line_items: [
    {
      merchant_id: 'L1',
      sku: 'MUG',
      name: 'Mug',
      quantity: 2,
      thumbnail: { src: 'https://x/m.png', width: 100, height: 80 },
    },
    { merchant_id: 'L2', sku: 'TEE', name: 'T-shirt', quantity: 1 },
    { merchant_id: 'L3', sku: 'CAP', name: 'Cap', quantity: 1 },
  ],
  fulfillments: [
    {
      merchant_id: 'F1',
      status_code: 'preparing_shipment',
      line_items: [
        { merchant_id: 'L1', quantity: 2 },
        { merchant_id: 'L2', quantity: 1 },
        { merchant_id: 'L3', quantity: 1 },
      ],
      trackers: [{ tracking_number: 'TN-1001', carrier_code: 'colissimo', line_items: ['L1', 'L2', 'L3'] }],
    },
  ],
  ...overrides,
})

const upsert = (server: TestServer, body: unknown, key?: string) => server.request('POST', '/v2/orders', { body, key })
const historyLength = async (server: TestServer, id: number) =>
  (await server.request('GET', `/v2/orders/${id}/history?limit=100`)).body.data.length

t.test("a fulfillment's or tracker's line item naming an order line item carries its fields", async (t) => {
  const server = await startTestServer(t)
  const body = storeOrder({
    fulfillments: [
      {
        merchant_id: 'F1',
        line_items: [{ merchant_id: 'L1', quantity: 1 }, { merchant_id: 'L2' }],
        trackers: [{ tracking_number: 'TN-1', line_items: [{ merchant_id: 'L2', quantity: 1 }, 'L1'] }],
      },
    ],
  })
  const created = await upsert(server, body)
  t.equal(created.status, 201, JSON.stringify(created.body))
  const read = await server.request(
    'GET',
    `/v2/orders/${created.body.id}?expand[]=fulfillments.line_items&expand[]=fulfillments.trackers.line_items`,
  )
  const fulfillment = read.body.fulfillments.data[0]
  const byId = (items: { data: { merchant_id: string }[] }) =>
    Object.fromEntries(items.data.map((li) => [li.merchant_id, li]))
  t.match(byId(fulfillment.line_items), {
    L1: { sku: 'MUG', name: 'Mug', quantity: 1, thumbnail: { src: 'https://x/m.png' } },
    L2: { sku: 'TEE', name: 'T-shirt' },
  })
  t.match(byId(fulfillment.trackers.data[0].line_items), {
    L1: { sku: 'MUG', name: 'Mug' },
    L2: { sku: 'TEE', name: 'T-shirt', quantity: 1 },
  })
  t.equal((await upsert(server, body)).status, 200, 're-sent unchanged')
})

t.test('create, re-send unchanged, update: 201, 200 with nothing appended, 200', async (t) => {
  const server = await startTestServer(t)
  const created = await upsert(server, storeOrder())
  t.equal(created.status, 201, JSON.stringify(created.body))
  const order = created.body
  t.match(order, {
    object: 'order',
    merchant_id: 'shop-1001',
    order_number: 'W-1001',
    language_code: 'fr',
    shipping_address: { object: 'address', country_code: 'FR', country: 'France', city: 'Paris' },
    line_items: { object: 'list', data: [{ object: 'line_item' }, {}, {}] },
    fulfillments: {
      data: [
        {
          merchant_id: 'F1',
          status_code: 'shipped',
          trackers: { data: [{ tracking_number: 'TN-1001', carrier: { code: 'colissimo' } }] },
        },
      ],
    },
  })
  const mug = order.line_items.data.find((li: { merchant_id: string }) => li.merchant_id === 'L1')
  t.same(
    mug.thumbnail,
    { src: 'https://x/m.png', width: '100', height: '80' },
    'sizes sent as numbers, kept as strings',
  )
  t.equal(order.fulfillments.data[0].trackers.data[0].line_items.data.length, 3, 'the tracker carries the items named')

  const events = await historyLength(server, order.id)
  const again = await upsert(server, storeOrder())
  t.equal(again.status, 200)
  t.same(again.body, order, 'the same order')
  t.equal(await historyLength(server, order.id), events, 'a re-send that changes nothing appends nothing')

  const changed = await upsert(server, storeOrder({ email: 'jo@new.example', first_name: null }))
  t.match(changed, { status: 200, body: { id: order.id, email: 'jo@new.example', first_name: null } })
  const read = await readAfter(
    server,
    `/v2/orders/${order.id}?expand[]=line_items`,
    changed.headers.get('x-shiplog-position')!,
  )
  t.equal(read.body.email, 'jo@new.example')
  t.equal(read.body.line_items.data.length, 3)
})

t.test('status rules: partial shipment, canceled quantities, canceling the order', async (t) => {
  const server = await startTestServer(t)
  const partial = storeOrder({
    fulfillments: [
      {
        merchant_id: 'F1',
        status_code: 'preparing_shipment',
        line_items: [
          { merchant_id: 'L1', quantity: 2 },
          { merchant_id: 'L2', quantity: 1 },
        ],
        trackers: [{ tracking_number: 'TN-P', line_items: ['L1'] }],
      },
    ],
  })
  const created = await upsert(server, partial)
  t.equal(created.body.fulfillments.data[0].status_code, 'partially_shipped')

  const canceledItem = await upsert(server, {
    ...partial,
    fulfillments: [{ merchant_id: 'F1', line_items: [{ merchant_id: 'L2', canceled_quantity: 1 }] }],
  })
  const f1 = canceledItem.body.fulfillments.data[0]
  t.match(
    f1.line_items.data.find((li: { merchant_id: string }) => li.merchant_id === 'L2'),
    { canceled: true, canceled_quantity: 1 },
    'canceled_quantity reaching quantity cancels the item',
  )
  t.equal(f1.status_code, 'shipped', 'every item still wanted is in a tracker')

  const none = await upsert(server, {
    merchant_id: 'shop-2',
    order_number: 'W-2',
    fulfillments: [
      { merchant_id: 'F2', status_code: 'in_production', line_items: [{ merchant_id: 'A', quantity: 1 }] },
    ],
  })
  t.equal(none.body.fulfillments.data[0].status_code, 'in_production', 'nothing in trackers: the status sent')
  const canceled = await upsert(server, { merchant_id: 'shop-2', order_number: 'W-2', canceled: true })
  t.match(canceled.body, { canceled: true, fulfillments: { data: [{ status_code: 'canceled' }] } })
})

t.test('a canceled order builds no notification when its parcel moves', async (t) => {
  const server = await startTestServer(t)
  await upsert(server, storeOrder({ canceled: true, ordered_at: null }))
  const pushed = await server.request('POST', '/v2/trackers/events', {
    body: { events: [{ tracking_number: 'TN-1001', event_type_code: 'transit', happened_at: 1_795_000_000 }] },
  })
  const tracker = await readAfter(
    server,
    '/v2/trackers?tracking_number=TN-1001&expand[]=notifications.notification_type',
    pushed.headers.get('x-shiplog-position')!,
  )
  t.equal(tracker.body.data[0].delivery_status_code, 'in_transit')
  t.same(tracker.body.data[0].notifications.data, [])
})

t.test('v1 and v2 meet on the same order and tracker', async (t) => {
  const server = await startTestServer(t)
  const v2 = await upsert(server, storeOrder())
  const trackerId = v2.body.fulfillments.data[0].trackers.data[0].id
  const v1 = await postTrackers(server, [
    { order_number: 'W-1001', tracking_number: 'TN-1001', email: 'v1@example.com' },
  ])
  t.match(v1.body.trackers[0], { id: trackerId, order_id: v2.body.id, created: false })
  const read = await readAfter(server, `/v2/orders/${v2.body.id}`, v1.position)
  t.equal(read.body.email, 'v1@example.com')
})

t.test('wrong types answer 400 naming every field, and write nothing', async (t) => {
  const server = await startTestServer(t)
  const bad = await upsert(server, {
    merchant_id: 12,
    line_items: [{ merchant_id: 'L1', quantity: 'two' }],
    fulfillments: [{ merchant_id: 'F', trackers: [{ carrier_code: 'dhl' }] }],
    shipping_address: { country_code: 'XX' },
    unknown_key: { ignored: true },
  })
  t.equal(bad.status, 400)
  for (const field of [
    'merchant_id',
    'line_items.0.quantity',
    'fulfillments.0.trackers.0.tracking_number',
    'shipping_address.country_code',
  ]) {
    t.ok(field in bad.body.errors, `names ${field}`)
  }
  t.notOk('unknown_key' in bad.body.errors, 'unknown keys are ignored')
  t.same((await server.request('GET', '/v2/orders')).body.data, [])
})

t.test("batch_create: a job whose results are each order's answer; a bad order fails alone", async (t) => {
  const server = await startTestServer(t)
  const batch = await server.request('POST', '/v2/orders/batch_create', {
    body: {
      orders: [
        storeOrder(),
        { merchant_id: 'bad', line_items: 'none' },
        storeOrder({ merchant_id: 'shop-2', order_number: 'W-2' }),
      ],
    },
  })
  t.equal(batch.status, 202)
  t.equal(batch.headers.get('location'), `/v2/jobs/${batch.body.job_id}`)
  const { job } = await waitForJob(server, batch.body.job_id)
  t.match(job, {
    status: 'completed',
    payload: { method: 'POST', url: '/v2/orders/batch_create', body: { orders: Array } },
    results: [
      { status: 201, body: { object: 'order', order_number: 'W-1001' } },
      { status: 400, body: { errors: { line_items: String } } },
      { status: 201, body: { order_number: 'W-2' } },
    ],
  })
  const tooMany = await server.request('POST', '/v2/orders/batch_create', {
    body: { orders: Array.from({ length: 101 }, () => ({})) },
  })
  t.match(tooMany, { status: 400, body: { errors: { orders: /100/ } } })
})

t.test("another account's order is not found, and its order numbers are its own", async (t) => {
  const server = await startTestServer(t)
  const mine = await upsert(server, storeOrder())
  const other = await server.newAccount()
  const theirs = await upsert(server, storeOrder(), other.private_key)
  t.equal(theirs.status, 201, 'the same order number makes another order in another account')
  t.not(theirs.body.id, mine.body.id)
  t.equal((await server.request('GET', `/v2/orders/${theirs.body.id}`)).status, 404)
  t.equal((await upsert(server, storeOrder(), server.publicKey)).status, 403, 'the public key cannot write')
})
