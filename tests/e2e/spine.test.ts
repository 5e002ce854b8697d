import { spawnSync } from 'node:child_process'
import t from 'tap'
import { postTrackers, readAfter, startTestServer } from '../support/server.ts'

t.test('the thin flow: POST /v1/trackers then GET /v2/orders over HTTP', async (t) => {
  const server = await startTestServer(t)
  const post = await postTrackers(server, [
    { order_number: 'A-100', tracking_number: '1Z999AA10123456784', email: 'jo@example.com' },
  ])
  t.equal(post.status, 201)
  t.match(post.position, /^\d+$/, 'a write answers X-Shiplog-Position')
  const [outcome] = post.body.trackers
  t.match(outcome, { order_number: 'A-100', tracking_number: '1Z999AA10123456784', created: true })

  const list = await readAfter(server, '/v2/orders', post.position)
  t.equal(list.status, 200)
  t.match(list.body, { object: 'list', has_more: false })
  t.equal(list.body.data.length, 1)
  const [order] = list.body.data
  t.match(order, { object: 'order', id: outcome.order_id, order_number: 'A-100', email: 'jo@example.com' })
  t.match(order.uuid, /^[0-9a-f-]{36}$/)
  t.type(order.created_at, 'number')
  t.same(order.fulfillments, { object: 'list', data: [{ object: 'fulfillment', id: outcome.fulfillment_id }] })

  const second = await postTrackers(server, [{ order_number: 'A-101', tracking_number: 'X1' }])
  const newest = await readAfter(server, '/v2/orders', second.position)
  t.same(
    newest.body.data.map((o: { order_number: string }) => o.order_number),
    ['A-101', 'A-100'],
    'newest first',
  )
  t.equal((await server.request('GET', '/api/v2/orders')).status, 200, '/api/v2 answers as /v2')
})

t.test('authentication: bearer or bare key, 401, 403, and no other account sees the data', async (t) => {
  const server = await startTestServer(t)
  const post = await postTrackers(server, [{ order_number: 'MINE', tracking_number: 'T1' }])
  const bare = await server.request('GET', '/v2/orders', {
    key: null,
    headers: { authorization: server.privateKey, 'x-shiplog-position': post.position! },
  })
  t.equal(bare.status, 200, 'a bare key works')
  t.equal(bare.body.data.length, 1)

  const missing = await server.request('GET', '/v2/orders', { key: null })
  t.equal(missing.status, 401)
  t.match(missing.body, { errors: { details: /API key/ } })
  t.equal((await server.request('GET', '/v2/orders', { key: 'sk_wrong' })).status, 401)
  const v1 = await server.request('POST', '/v1/trackers', { key: 'nope', body: { trackers: [] } })
  t.equal(v1.status, 401)
  t.match(v1.body, { error: /Unknown API key/ }, 'v1 error shape')
  const publicKey = await server.request('GET', '/v2/orders', { key: server.publicKey })
  t.equal(publicKey.status, 403, 'the public key is refused on private routes')

  const other = await server.newAccount()
  const theirs = await readAfter(server, '/v2/orders', post.position, other.private_key)
  t.same(theirs.body.data, [], "another account's orders are invisible")
  const orderId = post.body.trackers[0].order_id
  t.equal((await server.request('GET', `/v2/orders/${orderId}`, { key: other.private_key })).status, 404)
  t.equal((await server.request('GET', `/v2/orders/${orderId}`)).status, 200)
})

t.test('errors: request ids, 404, 400 on bad JSON, 413, 415, no stack traces', async (t) => {
  const server = await startTestServer(t, { env: { BODY_LIMIT: '2048' } })
  const unknown = await server.request('GET', '/v2/nothing-here', { key: null })
  t.equal(unknown.status, 404)
  t.match(unknown.body, { errors: { details: /No route/ } })
  t.match(unknown.headers.get('x-request-id'), /^req_/)

  const badJson = await server.request('POST', '/v1/trackers', {
    body: '{"trackers": [',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(badJson.status, 400)
  t.same(badJson.body, { error: 'Body is not valid JSON' })

  const big = await server.request('POST', '/v1/trackers', {
    body: { trackers: [{ order_number: 'x'.repeat(5000), tracking_number: 'y' }] },
  })
  t.equal(big.status, 413)

  const text = await server.request('POST', '/v1/trackers', {
    body: 'trackers',
    headers: { 'content-type': 'text/plain' },
  })
  t.equal(text.status, 415)
  for (const r of [unknown, badJson, big, text]) t.notMatch(JSON.stringify(r.body), /at .*\.ts:\d+/, 'no stack trace')
})

t.test('health and readiness need no key', async (t) => {
  const server = await startTestServer(t)
  t.same((await server.request('GET', '/healthz', { key: null })).body, { status: 'ok' })
  const ready = await server.request('GET', '/readyz', { key: null })
  t.equal(ready.status, 200)
  t.match(ready.body, {
    status: 'ready',
    checks: { event_store: 'ok', read_store: 'ok', redis: 'ok', projections: 'ok' },
  })
})

t.test('read-your-writes: a read that sends the position back sees the write', async (t) => {
  // A slow poller: without the in-process wake-up and the wait, the read would miss the write.
  const server = await startTestServer(t, { env: { POLL_INTERVAL_MS: '2000' } })
  for (let i = 0; i < 5; i++) {
    const post = await postTrackers(server, [{ order_number: `R-${i}`, tracking_number: `T-${i}` }])
    const read = await readAfter(server, `/v2/orders?order_number=R-${i}`, post.position)
    t.equal(read.body.data.length, 1, `write ${i} is visible`)
  }
  const bad = await server.request('GET', '/v2/orders', { headers: { 'x-shiplog-position': 'soon' } })
  t.equal(bad.status, 400)
})

t.test('shiplog accounts create prints keys that work at once on a running server', async (t) => {
  const server = await startTestServer(t)
  const cli = spawnSync(process.execPath, ['bin/shiplog.js', 'accounts', 'create', '--name', 'CLI Shop'], {
    env: { ...process.env, ...server.stores, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  })
  t.equal(cli.status, 0, cli.stderr)
  const account = JSON.parse(cli.stdout)
  t.match(account, { id: Number, name: 'CLI Shop', private_key: /^sk_/, public_key: /^pk_/ })
  const response = await server.request('GET', '/v2/orders', { key: account.private_key })
  t.equal(response.status, 200)
  const badConfig = spawnSync(process.execPath, ['bin/shiplog.js', 'accounts', 'create', '--name', 'x'], {
    env: { ...process.env, PORT: 'abc' },
    encoding: 'utf8',
  })
  t.equal(badConfig.status, 2)
  t.equal(badConfig.stderr, 'Invalid configuration: PORT must be a whole number from 0 to 65535, not "abc"\n')
})

t.test('operations: OpenAPI document, Prometheus metrics, rate limit with Retry-After', async (t) => {
  const server = await startTestServer(t, { env: { RATE_LIMIT_PER_MINUTE: '5' } })
  const openapi = await server.request('GET', '/openapi.json', { key: null })
  t.equal(openapi.status, 200)
  t.match(openapi.body, {
    openapi: /^3\./,
    paths: { '/v1/trackers': { post: Object }, '/v2/orders': { get: Object }, '/v2/jobs/{job_id}': { get: Object } },
  })
  const metrics = await server.request('GET', '/metrics', { key: null })
  t.equal(metrics.status, 200)
  t.match(metrics.body, /shiplog_projection_lag_events\{projection="orders"\} \d+/)
  t.match(metrics.body, /process_cpu_user_seconds_total/)
  const statuses: number[] = []
  for (let i = 0; i < 7; i++) statuses.push((await server.request('GET', '/v2/orders')).status)
  t.same(statuses.slice(0, 3), [200, 200, 200])
  const limited = await server.request('GET', '/v2/orders')
  t.equal(limited.status, 429)
  t.match(limited.headers.get('retry-after'), /^\d+$/)
  t.match(limited.body, { errors: { details: /Rate limit/ } })
  t.equal((await server.request('GET', '/healthz', { key: null })).status, 200, 'health is never limited')
})
