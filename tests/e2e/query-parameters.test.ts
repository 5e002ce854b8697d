import t from 'tap'
import { postTrackers, startTestServer } from '../support/server.ts'

t.test('every API route of the document refuses a query parameter it does not declare, naming it', async (t) => {
  const server = await startTestServer(t)
  const document = (await server.request('GET', '/openapi.json', { key: null })).body
  let walked = 0
  for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
    if (!/^\/v\d+\//.test(path)) continue
    for (const method of Object.keys(item)) {
      const url = `${path.replace(/\{[^}]+\}/g, '1')}?bogus_param=1`
      const key = path === '/v1/delivery_date_estimation' ? server.publicKey : undefined
      const answer = await server.request(method.toUpperCase(), url, { key, body: method === 'get' ? undefined : {} })
      t.equal(answer.status, 400, `${method.toUpperCase()} ${path}`)
      const named = answer.body.errors ? answer.body.errors.bogus_param : answer.body.error
      t.match(named, /bogus_param|is not a parameter of this route/, `${method.toUpperCase()} ${path} names it`)
      walked++
    }
  }
  t.ok(walked > 30, `${walked} operations walked`)
})

t.test('a typo is refused with the close match; nothing is listed or changed', async (t) => {
  const server = await startTestServer(t)
  await postTrackers(server, [{ order_number: 'A-1001', tracking_number: 'T-1' }])
  const typo = await server.request('GET', '/v2/orders?order_numbr=A-1001')
  t.equal(typo.status, 400)
  t.match(typo.body.errors, {
    details: /^Unknown query parameter: order_numbr \(did you mean order_number\?\)/,
    order_numbr: 'is not a parameter of this route; did you mean order_number?',
  })
  t.notOk('data' in typo.body)
  const bare = await server.request('GET', '/v2/orders?gt=2026-01-01T00:00:00Z')
  t.equal(bare.status, 400, 'a bound sent bare, as an object parameter without its style')
  t.match(bare.body.errors.gt, /did you mean created_at\[gt\]\?/)
  t.equal((await server.request('GET', '/v2/trackers?trackng_number=T-1')).status, 400)
  t.equal((await server.request('GET', '/v2/orders/1?bogus=1')).status, 400)
  const v1 = await server.request('POST', '/v1/trackers?dry_run=1', {
    body: { trackers: [{ order_number: 'A-1002', tracking_number: 'T-2' }] },
  })
  t.equal(v1.status, 400)
  t.match(v1.body, { error: /Unknown query parameter: dry_run/ }, "in the v1 route's own error form")
  t.equal((await server.request('GET', '/v2/orders')).body.data.length, 1, 'nothing written')

  // What the routes do declare still works, brackets included.
  for (const ok of [
    '/v2/orders?order_number=A-1001&created_at[gt]=0&expand[]=line_items&limit=5',
    '/api/v2/orders?ordered_at[lte]=2100-01-01T00:00:00Z',
    '/v2/trackers?tracking_number=T-1&expand[]=events',
  ])
    t.equal((await server.request('GET', ok)).status, 200, ok)
  t.equal(
    (await server.request('GET', '/track?utm_source=mail&utm_campaign=x', { key: null })).status,
    200,
    'pages ignore',
  )
})

t.test('the document says what the service does: time filters, expand[], group_by, CSV, pages, /api', async (t) => {
  const server = await startTestServer(t)
  const document = (await server.request('GET', '/openapi.json', { key: null })).body
  const parameter = (path: string, name: string) =>
    document.paths[path].get.parameters.find((p: { name: string }) => p.name === name)

  const createdAt = parameter('/v2/orders', 'created_at')
  t.match(createdAt, { in: 'query', style: 'deepObject', explode: true, schema: { type: 'object' } })
  t.same(Object.keys(createdAt.schema.properties), ['gt', 'gte', 'lt', 'lte'])
  // A client following the document sends the deepObject form, which filters.
  await postTrackers(server, [{ order_number: 'F-1', tracking_number: 'T-1' }])
  const later = await server.request('GET', '/v2/orders?created_at[gt]=2100-01-01T00:00:00Z')
  t.same(later.body.data, [], 'created_at[gt] filters')

  const expand = parameter('/v2/orders', 'expand[]')
  t.ok(expand.schema.items.enum.includes('fulfillments.trackers.events.address'))
  t.ok(expand.schema.items.enum.includes('fulfillments'), 'a level above a path is a value too')
  t.ok(parameter('/v2/trackers', 'expand[]').schema.items.enum.includes('events.address'))
  const every = await server.request(
    'GET',
    `/v2/orders?${expand.schema.items.enum.map((p: string) => `expand[]=${p}`).join('&')}`,
  )
  t.equal(every.status, 200, 'every value the document lists is taken')

  t.equal(parameter('/v2/analytics/delivery_performance', 'group_by').required, false)
  const ungrouped = await server.request('GET', '/v2/analytics/delivery_performance?from=2026-01-01&to=2026-01-31')
  t.equal(ungrouped.status, 200, 'group_by may be left out, as the document says')

  const csv = document.paths['/v2/analytics/delivery_performance.csv'].get.responses['200'].content
  t.same(Object.keys(csv), ['text/csv'])
  const answered = await server.request('GET', '/v2/analytics/delivery_performance.csv?from=2026-01-01&to=2026-01-31')
  t.match(answered.headers.get('content-type'), /^text\/csv/)

  for (const page of ['/track', '/track/{token}', '/track/lookup']) {
    t.ok(document.paths[page]?.get, `${page} is in the document`)
    t.same(document.paths[page].get.security, [], `${page} takes no key`)
  }
  t.same(Object.keys(document.paths['/track/{token}'].get.responses['200'].content), ['text/html'])
  t.match(document.paths['/track/lookup'].get.responses['303'].headers, { Location: Object })
  t.match(document.servers, [{ url: '/' }, { url: '/api' }])
})

t.test('a POST that needs no body takes the JSON Content-Type with an empty body', async (t) => {
  const server = await startTestServer(t, { env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true' } })
  const created = await postTrackers(server, [{ order_number: 'E-1', tracking_number: 'T-1' }])
  const order = (await server.request('GET', '/v2/orders?order_number=E-1')).body.data[0]
  const endpoint = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: 'http://127.0.0.1:9/hooks' },
  })
  for (const path of [
    `/v2/orders/${order.id}/tracking_link/rotate`,
    `/v2/trackers/${created.body.trackers[0].id}/refresh`,
    `/v2/webhook_endpoints/${endpoint.body.id}/test`,
  ]) {
    const answer = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.privateKey}`, 'content-type': 'application/json' },
    })
    const body = await answer.text()
    t.notMatch(body, /not valid JSON/, `${path}: ${answer.status}`)
    t.not(answer.status, 400, path)
    t.ok(answer.status < 500, path)
  }
  const bad = await fetch(`${server.url}/v2/orders/${order.id}/tracking_link/rotate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.privateKey}`, 'content-type': 'application/json' },
    body: '{',
  })
  t.equal(bad.status, 400, 'a body that is there must still be JSON')
})
