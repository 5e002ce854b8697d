import t from 'tap'
import { fixedClock } from '../../shared/infra/clock.ts'
import { postTrackers, readAfter, startTestServer, type TestServer } from '../support/server.ts'

const NOW = new Date('2026-11-20T12:00:00Z')
const nowSeconds = NOW.getTime() / 1000
const ALL = [
  'shipping_address',
  'notifications.notification_payloads',
  'notifications.notification_type',
  'fulfillments.trackers.carrier',
  'fulfillments.shipping_address',
]
  .map((p) => `expand[]=${p}`)
  .join('&')

async function orderOf(server: TestServer, orderNumber: string, position?: string) {
  const list = await readAfter(server, `/v2/orders?order_number=${encodeURIComponent(orderNumber)}&${ALL}`, position)
  return list.body.data[0]
}

t.test('every field of an item lands where the spec puts it', async (t) => {
  const server = await startTestServer(t, { clock: fixedClock(NOW) })
  const post = await postTrackers(server, [
    {
      order_number: 'F-1',
      tracking_number: '1Z999AA10123456784',
      address_city: 'Lyon',
      address_country: 'fr',
      address_name: 'Jo Martin',
      address_state: null,
      address_street: '12 rue de la Paix\nBâtiment B\n3e étage',
      address_zip: '69001',
      carrier_service_code: 'ups_standard',
      custom_variables: { gift: true },
      email: 'jo@example.com',
      expected_delivery_at: '2026-11-24T15:00:00Z',
      first_name: 'Jo',
      last_name: 'Martin',
      language_code: 'fr',
      order_date: nowSeconds - 3600,
      phone: '06 12 34 56 78',
      untracked_carrier_name: 'Local courier',
    },
  ])
  t.equal(post.status, 201)
  const order = await orderOf(server, 'F-1', post.position)
  t.match(order, {
    email: 'jo@example.com',
    first_name: 'Jo',
    last_name: 'Martin',
    phone: '+33612345678',
    language_code: 'fr',
    ordered_at: nowSeconds - 3600,
    created_at: nowSeconds,
    merchant_id: 'F-1',
    shipping_address: {
      object: 'address',
      name: 'Jo Martin',
      address1: '12 rue de la Paix',
      address2: 'Bâtiment B, 3e étage',
      city: 'Lyon',
      zip: '69001',
      state: null,
      country_code: 'FR',
      country: 'France',
    },
  })
  const [fulfillment] = order.fulfillments.data
  t.match(fulfillment, {
    object: 'fulfillment',
    status_code: 'shipped',
    shipping_address: { city: 'Lyon', country_code: 'FR' },
  })
  t.not(fulfillment.shipping_address.id, order.shipping_address.id, 'the fulfillment has its own address resource')
  const [tracker] = fulfillment.trackers.data
  t.match(tracker, {
    object: 'tracker',
    tracking_number: '1Z999AA10123456784',
    carrier: { object: 'carrier', code: 'ups', name: 'UPS' },
    carrier_service: { object: 'carrier_service', code: 'ups_standard' },
    tracking_link: 'https://wwwapps.ups.com/WebTracking/track?track=yes&trackNums=1Z999AA10123456784',
    custom_variables: { gift: true },
    mute_notifications: false,
    untracked_carrier_name: 'Local courier',
    displayable_expected_delivery_date: '2026-11-24',
    displayable_expected_delivery_datetime: Date.parse('2026-11-24T15:00:00Z') / 1000,
    displayable_expected_delivery_kind: 'merchant',
  })
})

t.test('matching on (order_number, tracking_number): create, add, update, leave unsent fields alone', async (t) => {
  const server = await startTestServer(t)
  const first = await postTrackers(server, [
    { order_number: 'M-1', tracking_number: 'T-1', email: 'a@x.io', phone: '+14155552671' },
  ])
  t.equal(first.body.trackers[0].created, true)
  const second = await postTrackers(server, [
    { order_number: 'M-1', tracking_number: 'T-2' },
    { order_number: 'M-1', tracking_number: 'T-1', email: 'b@x.io' },
  ])
  const [added, updated] = second.body.trackers
  t.match(added, { created: true, order_id: first.body.trackers[0].order_id })
  t.match(updated, {
    created: false,
    id: first.body.trackers[0].id,
    fulfillment_id: first.body.trackers[0].fulfillment_id,
  })
  t.not(added.fulfillment_id, updated.fulfillment_id, 'a second tracking number adds a fulfillment')

  const order = await orderOf(server, 'M-1', second.position)
  t.equal(order.email, 'b@x.io', 'a sent field is updated')
  t.equal(order.phone, '+14155552671', 'an unsent field is left unchanged')
  t.equal(order.fulfillments.data.length, 2)
  const list = await readAfter(server, '/v2/orders', second.position)
  t.equal(list.body.data.length, 1, 'still one order')

  const again = await postTrackers(server, [{ order_number: 'M-1', tracking_number: 'T-1', email: 'b@x.io' }])
  t.match(again.body.trackers[0], { created: false, id: first.body.trackers[0].id })
  t.same(await orderOf(server, 'M-1', again.position), order, 'a repeat changes nothing')

  const inBatch = await postTrackers(server, [
    { order_number: 'M-2', tracking_number: 'D-1', first_name: 'A' },
    { order_number: 'M-2', tracking_number: 'D-1', first_name: 'B' },
  ])
  t.same(
    inBatch.body.trackers.map((x: { created: boolean }) => x.created),
    [true, false],
    'a pair repeated in one batch updates',
  )
  t.equal(inBatch.body.trackers[0].id, inBatch.body.trackers[1].id)
  t.equal((await orderOf(server, 'M-2', inBatch.position)).first_name, 'B')
})

t.test('validation answers exactly as specified and a bad batch changes nothing', async (t) => {
  const server = await startTestServer(t)
  const wrong = await postTrackers(server, [
    { order_number: 'V-1', tracking_number: 'T', phone: 612345678 },
    { order_number: 'V-2', tracking_number: 'T' },
    { order_number: 'V-3', tracking_number: 'T' },
    { order_number: 'V-4', tracking_number: 'T', email: ['x'] },
  ])
  t.equal(wrong.status, 400)
  t.same(wrong.body, { error: 'Wrong data type for keys: trackers.0.phone, trackers.3.email' })

  const missing = await postTrackers(server, [{ order_number: 'V-5' }, { tracking_number: 'T' }])
  t.equal(missing.status, 400)
  t.same(missing.body, { error: 'Missing required keys: trackers.0.tracking_number, trackers.1.order_number' })

  const types = await postTrackers(server, [
    { order_number: 1, tracking_number: 'T', mute_notifications: 'yes', custom_variables: 'x', order_date: true },
  ])
  t.same(types.body, {
    error:
      'Wrong data type for keys: trackers.0.order_number, trackers.0.mute_notifications, trackers.0.custom_variables, trackers.0.order_date',
  })

  // The specification's form, and nothing else, once a key has the wrong type or an unreadable value.
  const both = await postTrackers(server, [
    { tracking_number: 'T', email: 5 },
    { phone: true, order_number: 'V-7' },
  ])
  t.same(
    both.body,
    { error: 'Wrong data type for keys: trackers.0.email, trackers.1.phone' },
    'wrong types in input order; the missing keys are not mixed in',
  )
  const unreadable = await postTrackers(server, [
    { order_number: 'V-8', tracking_number: 'T', email: 5, expected_delivery_at: 'abc' },
  ])
  t.same(unreadable.body, { error: 'Wrong data type for keys: trackers.0.email, trackers.0.expected_delivery_at' })

  const tooMany = await postTrackers(
    server,
    Array.from({ length: 1001 }, (_, i) => ({ order_number: `O${i}`, tracking_number: 'T' })),
  )
  t.equal(tooMany.status, 400)
  t.match(tooMany.body.error, /trackers: .*1000/)
  t.same((await server.request('POST', '/v1/trackers', { body: {} })).body, {
    error: 'Missing required keys: trackers',
  })
  t.same((await server.request('POST', '/v1/trackers', { body: { trackers: {} } })).body, {
    error: 'Wrong data type for keys: trackers',
  })
  const badValues = await postTrackers(server, [
    { order_number: 'V-6', tracking_number: 'T', address_country: 'Atlantis', order_date: 'next week' },
  ])
  t.same(badValues.body, { error: 'Wrong data type for keys: trackers.0.order_date' }, 'a date that is no date')
  const badCountry = await postTrackers(server, [
    { order_number: 'V-6', tracking_number: 'T', address_country: 'Atlantis' },
  ])
  t.equal(badCountry.status, 400)
  t.match(badCountry.body.error, /^trackers\.0\.address_country: .*country code/)

  const valid = await postTrackers(server, [{ order_number: 'V-OK', tracking_number: 'T' }])
  const list = await readAfter(server, '/v2/orders', valid.position)
  t.same(
    list.body.data.map((o: { order_number: string }) => o.order_number),
    ['V-OK'],
    'nothing of the refused batches was written',
  )
})

t.test('carrier: given, unknown, detected, or none with the untracked name', async (t) => {
  const server = await startTestServer(t)
  const post = await postTrackers(server, [
    { order_number: 'C-1', tracking_number: 'ABC123', carrier_code: 'acme_freight', untracked_carrier_name: 'Acme' },
    { order_number: 'C-2', tracking_number: '449044304137821' },
    { order_number: 'C-3', tracking_number: 'NOTHING-MATCHES', untracked_carrier_name: 'Bike courier' },
    { order_number: 'C-4', tracking_number: '9999', carrier_code: 'UPS' },
  ])
  const tracker = async (n: string) => (await orderOf(server, n, post.position)).fulfillments.data[0].trackers.data[0]
  t.match(await tracker('C-1'), { carrier: { code: 'acme_freight', name: 'acme_freight' }, tracking_link: null })
  t.match(await tracker('C-2'), {
    carrier: { code: 'fedex', name: 'FedEx' },
    tracking_link: /fedex\.com.*449044304137821/,
  })
  t.match(await tracker('C-3'), { carrier: null, tracking_link: null, untracked_carrier_name: 'Bike courier' })
  t.match(await tracker('C-4'), { carrier: { code: 'ups', name: 'UPS' }, tracking_link: /ups\.com.*9999/ })
})

t.test('phone: E.164 for the address country, kept as given when it does not parse', async (t) => {
  const server = await startTestServer(t)
  const post = await postTrackers(server, [
    { order_number: 'P-1', tracking_number: 'T', phone: '(415) 555-2671', address_country: 'US' },
    { order_number: 'P-2', tracking_number: 'T', phone: 'call me maybe' },
  ])
  t.equal((await orderOf(server, 'P-1', post.position)).phone, '+14155552671')
  t.equal((await orderOf(server, 'P-2', post.position)).phone, 'call me maybe')
})

t.test(
  'order_placed notification: built on first receipt, within 36 hours; a muted tracker does not mute its order',
  async (t) => {
    const server = await startTestServer(t, { clock: fixedClock(NOW) })
    const hours = (h: number) => nowSeconds - h * 3600
    const post = await postTrackers(server, [
      { order_number: 'N-fresh', tracking_number: 'T', email: 'jo@x.io', order_date: hours(1) },
      { order_number: 'N-36h', tracking_number: 'T', email: 'jo@x.io', order_date: hours(36) },
      { order_number: 'N-old', tracking_number: 'T', email: 'jo@x.io', order_date: hours(36) - 1 },
      { order_number: 'N-muted', tracking_number: 'T', email: 'jo@x.io', mute_notifications: true },
      { order_number: 'N-noemail', tracking_number: 'T' },
    ])
    const notifications = async (n: string) => (await orderOf(server, n, post.position)).notifications.data
    const [fresh] = await notifications('N-fresh')
    t.match(fresh, {
      object: 'notification',
      created_at: nowSeconds,
      language_code: 'en',
      notification_type: {
        object: 'notification_type',
        slug: 'order_placed',
        category: 'pre_shipment',
        name: String,
        description: String,
      },
      notification_payloads: {
        object: 'list',
        data: [{ object: 'notification_payload', type: 'email', status: 'built', dispatched: false, error: null }],
      },
    })
    t.equal((await notifications('N-36h')).length, 1, 'exactly 36 hours old is still sent')
    t.same(await notifications('N-old'), [], 'older than 36 hours is not')
    t.equal((await notifications('N-muted')).length, 1, 'the tracker is muted, not its order')
    const [noEmail] = await notifications('N-noemail')
    t.same(noEmail.notification_payloads.data, [], 'no e-mail, no payload')
    const again = await postTrackers(server, [{ order_number: 'N-fresh', tracking_number: 'T2', email: 'jo@x.io' }])
    t.equal((await orderOf(server, 'N-fresh', again.position)).notifications.data.length, 1, 'only on first receipt')
  },
)

t.test('concurrent batches on the same order both apply, with no lost update', async (t) => {
  const server = await startTestServer(t)
  const batches = Array.from({ length: 8 }, (_, b) =>
    postTrackers(
      server,
      Array.from({ length: 20 }, (_, i) => ({ order_number: `SHARED-${i % 3}`, tracking_number: `B${b}-T${i}` })),
    ),
  )
  const results = await Promise.all(batches)
  t.same(
    results.map((r) => r.status),
    Array(8).fill(201),
  )
  const last = results.map((r) => BigInt(r.position!)).reduce((a, b) => (a > b ? a : b))
  const list = await readAfter(server, `/v2/orders?expand[]=fulfillments.trackers.carrier`, last.toString())
  const trackers = list.body.data.flatMap((o: any) =>
    o.fulfillments.data.flatMap((f: any) => f.trackers.data.map((x: any) => x.tracking_number)),
  )
  t.equal(list.body.data.length, 3)
  t.equal(trackers.length, 160, 'every tracker of every batch is there')
  t.equal(new Set(trackers).size, 160)
})

t.test('Idempotency-Key: a repeat returns the first response and appends nothing', async (t) => {
  const server = await startTestServer(t)
  const items = [{ order_number: 'I-1', tracking_number: 'T-1' }]
  const first = await postTrackers(server, items, { 'idempotency-key': 'batch-42' })
  const history = () =>
    readAfter(server, `/v2/orders/${first.body.trackers[0].order_id}/history?limit=100`, first.position)
  const before = await history()
  const repeat = await postTrackers(server, items, { 'idempotency-key': 'batch-42' })
  t.equal(repeat.status, 201)
  t.same(repeat.body, first.body)
  t.equal(repeat.position, first.position, 'the position of the first answer: nothing appended')
  t.same((await history()).body, before.body, 'the order has no new event')
  const concurrent = await Promise.all(
    [1, 2, 3].map(() =>
      postTrackers(server, [{ order_number: 'I-2', tracking_number: 'T' }], { 'idempotency-key': 'race' }),
    ),
  )
  t.same(new Set(concurrent.map((c) => c.body.trackers[0].id)).size, 1, 'concurrent repeats get one answer')
  const misuse = await postTrackers(server, [{ order_number: 'I-3', tracking_number: 'T' }], {
    'idempotency-key': 'batch-42',
  })
  t.equal(misuse.status, 422, 'the same key with another body is refused')

  // A key means one request: method, path and body. On another route it is refused, and nothing is done.
  const endpoint = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: 'https://erp.example.com/hooks' },
  })
  const path = `/v2/webhook_endpoints/${endpoint.body.id}`
  const elsewhere = [
    await server.request('POST', `${path}/rotate_secret`, { headers: { 'idempotency-key': 'batch-42' } }),
    await server.request('DELETE', path, { headers: { 'idempotency-key': 'batch-42' } }),
  ]
  for (const answer of elsewhere) {
    t.equal(answer.status, 422)
    t.match(answer.body.errors.details, 'already used with another request (POST /v1/trackers)')
  }
  t.equal((await server.request('GET', path)).status, 200, 'the endpoint was not deleted')
  const api = await server.request('POST', '/api/v2/webhook_endpoints/0/test', { headers: { 'idempotency-key': 'k' } })
  const v2 = await server.request('POST', '/v2/webhook_endpoints/0/test', { headers: { 'idempotency-key': 'k' } })
  t.equal(v2.status, api.status, 'the same request under /api/v2 and /v2 is one')
})
