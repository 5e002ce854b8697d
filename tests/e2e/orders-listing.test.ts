import { until } from '../support/progress.ts'
import t from 'tap'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { fixedClock } from '../../shared/infra/clock.ts'
import { orderExpandPaths } from '../../projectors/resources/expansion.ts'
import { postTrackers, readAfter, startTestServer, type TestServer } from '../support/server.ts'

const T0 = Date.parse('2026-11-01T00:00:00Z') / 1000
const orderExpandPathsQuery = orderExpandPaths.map((p) => `expand[]=${p}`).join('&')
const numbers = (r: { body: { data: { order_number: string }[] } }) => r.body.data.map((o) => o.order_number)

/** 35 orders created one minute apart (O-01 oldest), ordered_at one day apart, two e-mails. */
async function seed(t: Parameters<typeof startTestServer>[0]) {
  const clock = fixedClock(new Date(T0 * 1000))
  const server = await startTestServer(t, { clock })
  let position: string | undefined
  for (let i = 1; i <= 35; i++) {
    clock.set(new Date((T0 + i * 60) * 1000))
    const n = String(i).padStart(2, '0')
    const post = await postTrackers(server, [
      {
        order_number: `O-${n}`,
        tracking_number: `T-${n}`,
        email: i % 5 === 0 ? (i % 10 === 0 ? 'Five@X.io' : 'five@x.io') : 'other@x.io',
        order_date: T0 - i * 86400,
      },
    ])
    position = post.position
  }
  return { server, get: (path: string) => readAfter(server, path, position) }
}

t.test('paging forward and back through 35 orders', async (t) => {
  const { get } = await seed(t)
  const expected = Array.from({ length: 35 }, (_, i) => `O-${String(35 - i).padStart(2, '0')}`)

  const first = await get('/v2/orders')
  t.equal(first.body.data.length, 10, 'default limit 10')
  t.same(numbers(first), expected.slice(0, 10))
  t.equal(first.body.has_more, true)

  const pages = [first]
  let cursor = first.body.data.at(-1).id
  for (;;) {
    const page = await get(`/v2/orders?limit=10&ending_before=${cursor}`)
    pages.push(page)
    if (!page.body.has_more) break
    cursor = page.body.data.at(-1).id
  }
  t.same(
    pages.map((p) => p.body.data.length),
    [10, 10, 10, 5],
  )
  t.same(
    pages.map((p) => p.body.has_more),
    [true, true, true, false],
  )
  t.same(pages.flatMap(numbers), expected, 'every order once, newest first')

  // And forward again from the oldest page.
  const oldest = pages.at(-1)!
  const forward = await get(`/v2/orders?limit=10&starting_after=${oldest.body.data[0].id}`)
  t.same(numbers(forward), expected.slice(20, 30), 'the ten just newer, still in descending order')
  t.equal(forward.body.has_more, true)
  const top = await get(`/v2/orders?limit=10&starting_after=${first.body.data[4].id}`)
  t.same(numbers(top), expected.slice(0, 4))
  t.equal(top.body.has_more, false)

  t.equal((await get('/v2/orders?limit=100')).body.data.length, 35)
  t.equal((await get('/v2/orders?limit=1')).body.has_more, true)
  for (const bad of ['0', '101', '-1', 'ten', '2.5']) {
    const r = await get(`/v2/orders?limit=${bad}`)
    t.equal(r.status, 400, `limit=${bad}`)
    t.match(r.body, { errors: { details: /limit/, limit: String } })
  }
  t.equal((await get('/v2/orders?starting_after=abc')).status, 400)
})

t.test('filters: e-mail, order number, created_at and ordered_at in every form', async (t) => {
  const { get } = await seed(t)
  t.same(numbers(await get('/v2/orders?email=five@x.io')), ['O-35', 'O-30', 'O-25', 'O-20', 'O-15', 'O-10', 'O-05'])
  t.same(
    numbers(await get('/v2/orders?email=FIVE@X.io')),
    ['O-35', 'O-30', 'O-25', 'O-20', 'O-15', 'O-10', 'O-05'],
    'e-mail addresses compare without case',
  )
  t.same(numbers(await get('/v2/orders?order_number=O-07')), ['O-07'])
  t.same(numbers(await get('/v2/orders?order_number=nope')), [])
  t.same(numbers(await get(`/v2/orders?created_at=${T0 + 3 * 60}`)), ['O-03'], 'exact second')
  t.same(numbers(await get(`/v2/orders?created_at[gt]=${T0 + 33 * 60}`)), ['O-35', 'O-34'])
  t.same(numbers(await get(`/v2/orders?created_at[gte]=${T0 + 33 * 60}`)), ['O-35', 'O-34', 'O-33'])
  t.same(numbers(await get(`/v2/orders?created_at[lt]=${T0 + 3 * 60}`)), ['O-02', 'O-01'])
  t.same(numbers(await get(`/v2/orders?created_at[lte]=${T0 + 2 * 60}`)), ['O-02', 'O-01'])
  t.same(numbers(await get(`/v2/orders?created_at[gt]=${T0 + 60}&created_at[lte]=${T0 + 4 * 60}`)), [
    'O-04',
    'O-03',
    'O-02',
  ])
  const iso = new Date((T0 + 34 * 60) * 1000).toISOString()
  t.same(numbers(await get(`/v2/orders?created_at[gte]=${iso}`)), ['O-35', 'O-34'], 'ISO 8601 bounds')
  t.same(numbers(await get(`/v2/orders?ordered_at[gte]=${T0 - 2 * 86400}`)), ['O-02', 'O-01'])
  t.same(numbers(await get(`/v2/orders?ordered_at=${T0 - 86400}`)), ['O-01'])
  t.same(
    numbers(await get(`/v2/orders?ordered_at[lt]=${T0 - 33 * 86400}&email=five@x.io`)),
    ['O-35'],
    'filters combine',
  )
  const paged = await get(`/v2/orders?email=other@x.io&created_at[gte]=${T0 + 20 * 60}&limit=3`)
  t.same(numbers(paged), ['O-34', 'O-33', 'O-32'])
  const next = await get(
    `/v2/orders?email=other@x.io&created_at[gte]=${T0 + 20 * 60}&created_at[lte]=${T0 + 99 * 60}&limit=3&ending_before=${paged.body.data[2].id}`,
  )
  t.same(numbers(next), ['O-31', 'O-29', 'O-28'], 'a filter combined with the cursor')

  for (const bad of [
    'created_at=yesterday',
    'created_at[gt]=soon',
    'created_at[between]=1',
    'ordered_at[gt]=',
    'email[eq]=x',
  ]) {
    t.equal((await get(`/v2/orders?${bad}`)).status, 400, bad)
  }
  const badBound = await get('/v2/orders?created_at[gt]=soon')
  t.same(
    badBound.body.errors['created_at.gt'],
    'must be Unix seconds or an ISO 8601 datetime',
    'a bad bound is named, with the rule it broke',
  )
})

t.test('the three restrictions: rejected and accepted combinations', async (t) => {
  const { get } = await seed(t)
  const both = await get(`/v2/orders?created_at[gt]=${T0}&ordered_at[gt]=${T0}`)
  t.equal(both.status, 400)
  t.match(both.body.errors.details, /Only one of created_at and ordered_at/)

  const cursor = (await get('/v2/orders?limit=20')).body.data[19].id
  for (const field of ['created_at', 'ordered_at']) {
    for (const op of ['lt', 'lte']) {
      const r = await get(`/v2/orders?starting_after=${cursor}&${field}[${op}]=${T0 + 3600}`)
      t.equal(r.status, 400, `starting_after with only ${field}[${op}]`)
      t.match(r.body.errors, { details: /starting_after/, [field]: String })
    }
    for (const op of ['gt', 'gte']) {
      const r = await get(`/v2/orders?ending_before=${cursor}&${field}[${op}]=${T0 - 3600 * 24 * 90}`)
      t.equal(r.status, 400, `ending_before with only ${field}[${op}]`)
      t.match(r.body.errors.details, /ending_before/)
    }
  }
  const accepted = [
    `starting_after=${cursor}&created_at[gt]=${T0}&created_at[lt]=${T0 + 3600}`,
    `starting_after=${cursor}&created_at[gte]=${T0}`,
    `ending_before=${cursor}&created_at[gte]=${T0}&created_at[lte]=${T0 + 3600}`,
    `ending_before=${cursor}&created_at[lt]=${T0 + 3600}`,
    `starting_after=${cursor}&ending_before=${cursor + 10 ** 9}&created_at[lt]=${T0 + 3600}`,
    `starting_after=${cursor}&created_at=${T0 + 60}`,
  ]
  for (const q of accepted) t.equal((await get(`/v2/orders?${q}`)).status, 200, q)
  const window = await get(
    `/v2/orders?ending_before=${cursor}&created_at[gte]=${T0 + 14 * 60}&created_at[lte]=${T0 + 15 * 60}`,
  )
  t.same(numbers(window), ['O-15', 'O-14'])
})

t.test('expansion: every path, its parents, stubs otherwise, unknown paths refused', async (t) => {
  const server: TestServer = await startTestServer(t)
  const post = await postTrackers(server, [
    {
      order_number: 'E-1',
      tracking_number: '1Z999AA10123456784',
      email: 'e@x.io',
      address_city: 'Paris',
      address_country: 'FR',
    },
  ])
  const get = (q: string) =>
    readAfter(server, `/v2/orders?order_number=E-1${q}`, post.position).then((r) => r.body.data[0])

  const bare = await get('')
  t.match(bare.shipping_address, { object: 'address', id: Number })
  t.same(Object.keys(bare.shipping_address).sort(), ['id', 'object'], 'an address stub')
  t.same(Object.keys(bare.fulfillments.data[0]).sort(), ['id', 'object'], 'a list of stubs')
  t.same(
    bare.notifications.data.map((n: object) => Object.keys(n).sort()),
    [['id', 'object']],
  )
  t.same(bare.line_items, { object: 'list', data: [] })

  t.match((await get('&expand[]=shipping_address')).shipping_address, {
    object: 'address',
    city: 'Paris',
    country: 'France',
  })
  const payloads = await get('&expand[]=notifications.notification_payloads')
  t.match(payloads.notifications.data[0], {
    object: 'notification',
    notification_payloads: { object: 'list', data: [{ object: 'notification_payload', status: 'built' }] },
    notification_type: { object: 'notification_type', id: Number },
  })
  t.notOk('slug' in payloads.notifications.data[0].notification_type, 'the sibling stays a stub')
  t.match((await get('&expand[]=notifications.notification_type')).notifications.data[0].notification_type, {
    slug: 'order_placed',
  })

  const carrier = await get('&expand[]=fulfillments.trackers.carrier')
  const fulfillment = carrier.fulfillments.data[0]
  t.equal(fulfillment.object, 'fulfillment', 'a parent level is expanded')
  t.same(Object.keys(fulfillment.shipping_address).sort(), ['id', 'object'])
  t.match(fulfillment.trackers.data[0], { object: 'tracker', carrier: { object: 'carrier', code: 'ups', name: 'UPS' } })
  t.same(fulfillment.trackers.data[0].events, { object: 'list', data: [] })
  const trackersOnly = await get('&expand[]=fulfillments.trackers.line_items')
  t.same(
    trackersOnly.fulfillments.data[0].trackers.data[0].carrier,
    { object: 'carrier', code: 'ups' },
    'a carrier stub shows its code',
  )
  t.match((await get('&expand[]=fulfillments.shipping_address')).fulfillments.data[0].shipping_address, {
    city: 'Paris',
  })
  for (const path of ['line_items', 'fulfillments.line_items', 'fulfillments.trackers.events.address']) {
    t.equal((await readAfter(server, `/v2/orders?expand[]=${path}`, post.position)).status, 200, path)
  }
  const several = await get('&expand[]=shipping_address&expand[]=fulfillments.shipping_address')
  t.match(several, {
    shipping_address: { city: 'Paris' },
    fulfillments: { data: [{ shipping_address: { city: 'Paris' } }] },
  })

  const unknown = await server.request('GET', '/v2/orders?expand[]=fulfillments.secrets')
  t.equal(unknown.status, 400)
  t.match(unknown.body.errors, { details: /fulfillments\.secrets/, 'expand[]': String })
  const one = await readAfter(server, `/v2/orders/${bare.id}?expand[]=shipping_address`, post.position)
  t.match(one.body, { object: 'order', id: bare.id, shipping_address: { city: 'Paris' } })
})

t.test('fully expanded pages, served pre-rendered, equal each order rendered on its own', async (t) => {
  const { server, get } = await seed(t)
  const all = orderExpandPathsQuery
  // Just written, an order's full view may not be rendered yet (the projector renders views when idle):
  // the page is then rendered from the documents, and must read the same as the pre-rendered one.
  const { readStore } = server.runtime
  const early = await get(`/v2/orders?limit=7&${all}`)
  await until(
    () => readStore.missingViews(collections.orders.name, 1),
    (missing) => missing.length === 0,
  )
  const page = await get(`/v2/orders?limit=7&${all}`)
  t.same(page.body, early.body, 'the pre-rendered page is the page rendered from the documents')
  t.equal(page.body.data.length, 7)
  t.equal(page.body.has_more, true)
  for (const order of page.body.data) {
    const single = await server.request('GET', `/v2/orders/${order.id}?${all}`)
    t.same(order, single.body, `order ${order.order_number}`)
  }
  t.match(page.body.data[0], {
    object: 'order',
    shipping_address: null,
    fulfillments: { data: [{ object: 'fulfillment', trackers: { data: [{ object: 'tracker' }] } }] },
  })
  const filtered = await get(`/v2/orders?${all}&email=five@x.io&created_at[gte]=${T0 + 20 * 60}`)
  t.same(numbers(filtered), ['O-35', 'O-30', 'O-25', 'O-20'])

  // Such answers are built in buffers reused from one answer to the next: many at once must each come whole and alone.
  const queries = ['limit=7', 'limit=35', 'email=five@x.io', `limit=3&ending_before=${page.body.data[6].id}`]
  const alone: unknown[] = []
  for (const q of queries) alone.push((await get(`/v2/orders?${all}&${q}`)).body)
  for (let round = 0; round < 3; round++) {
    const together = await Promise.all([...queries, ...queries].map((q) => get(`/v2/orders?${all}&${q}`)))
    t.same(
      together.map((r) => r.body),
      [...alone, ...alone],
      `round ${round + 1}: ${together.length} answers at once`,
    )
  }
})

t.test("another account's ids are not found and never listed", async (t) => {
  const server = await startTestServer(t)
  const mine = await postTrackers(server, [{ order_number: 'X-1', tracking_number: 'T' }])
  const other = await server.newAccount()
  const list = await readAfter(
    server,
    `/v2/orders?ending_before=${mine.body.trackers[0].order_id + 1}`,
    mine.position,
    other.private_key,
  )
  t.same(list.body.data, [])
  t.equal(
    (await server.request('GET', `/v2/orders/${mine.body.trackers[0].order_id}`, { key: other.private_key })).status,
    404,
  )
  t.same((await server.request('GET', '/v2/orders/999', { key: other.private_key })).body, {
    errors: { details: 'Order not found' },
  })
  t.same((await readAfter(server, '/v2/trackers', mine.position, other.private_key)).body.data, [])
})

t.test('GET /v2/trackers: pagination, filters and expansion', async (t) => {
  const server = await startTestServer(t)
  const post = await postTrackers(
    server,
    Array.from({ length: 12 }, (_, i) => ({
      order_number: `TR-${i}`,
      tracking_number: i === 0 ? '1Z999AA10123456784' : `N-${i}`,
    })),
  )
  const get = (q: string) => readAfter(server, `/v2/trackers${q}`, post.position)
  const first = await get('')
  t.match(first.body, { object: 'list', has_more: true })
  t.equal(first.body.data.length, 10)
  t.equal(first.body.data[0].tracking_number, 'N-11', 'newest first')
  const rest = await get(`?ending_before=${first.body.data[9].id}`)
  t.same(
    rest.body.data.map((x: { tracking_number: string }) => x.tracking_number),
    ['N-1', '1Z999AA10123456784'],
  )
  t.equal(rest.body.has_more, false)
  const ups = await get('?tracking_number=1Z999AA10123456784&expand[]=carrier')
  t.match(ups.body.data, [
    { object: 'tracker', carrier: { object: 'carrier', code: 'ups', name: 'UPS' }, events: { object: 'list' } },
  ])
  t.equal((await get('?delivery_status_code=pending&limit=100')).body.data.length, 12)
  t.same((await get('?delivery_status_code=delivered')).body.data, [])
  t.equal((await get('?expand[]=fulfillments')).status, 400)
})
