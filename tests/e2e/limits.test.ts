import { once } from 'node:events'
import { connect } from 'node:net'
import t from 'tap'
import { postTrackers, startTestServer } from '../support/server.ts'

t.test('what one tracker may hold is bounded: a 400 names the field, and nothing is written', async (t) => {
  const server = await startTestServer(t)
  const huge = await postTrackers(server, [
    { order_number: 'L-1', tracking_number: 'T', custom_variables: { blob: 'x'.repeat(20_000) } },
  ])
  t.equal(huge.status, 400)
  t.match(huge.body.error, /trackers\.0\.custom_variables: must be at most 16384 characters/)
  const long = await postTrackers(server, [{ order_number: 'L-1', tracking_number: 'T', first_name: 'x'.repeat(256) }])
  t.equal(long.status, 400)
  t.match(long.body.error, /trackers\.0\.first_name: must be at most 255 characters/)
  const number = await postTrackers(server, [{ order_number: 'n'.repeat(256), tracking_number: 'T' }])
  t.match(number.body.error, /trackers\.0\.order_number/)
  t.same((await server.request('GET', '/v2/orders')).body.data, [], 'nothing written')
  const fits = await postTrackers(server, [
    { order_number: 'L-2', tracking_number: 'T', custom_variables: { blob: 'x'.repeat(16_000) } },
  ])
  t.equal(fits.status, 201)
})

t.test('custom_variables nest at most 16 deep with at most 512 keys; an update of a deep one is a 400', async (t) => {
  const server = await startTestServer(t)
  const nested = (depth: number) => {
    const root: Record<string, unknown> = {}
    let at = root
    for (let i = 1; i < depth; i++) {
      const child: Record<string, unknown> = {}
      at.x = child
      at = child
    }
    return root
  }
  t.equal(
    (await postTrackers(server, [{ order_number: 'D-1', tracking_number: 'T', custom_variables: nested(16) }])).status,
    201,
  )
  for (const depth of [17, 4_000]) {
    for (const path of ['/v1/trackers', '/v2/orders'] as const) {
      const body =
        path === '/v1/trackers'
          ? { trackers: [{ order_number: 'D-1', tracking_number: 'T', custom_variables: nested(depth) }] }
          : { merchant_id: 'D-1', custom_variables: nested(depth) }
      const refused = await server.request('POST', path, { body })
      t.equal(refused.status, 400, `${path}, depth ${depth}`)
      // Past what any route needs, the body is refused before it is even parsed.
      const reason =
        depth > 32 ? /Body nests deeper than 32 levels/ : /custom_variables.*must nest at most 16 levels deep/
      t.match(JSON.stringify(refused.body), reason)
    }
  }
  const many = Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`k${i}`, i]))
  const keys = await postTrackers(server, [{ order_number: 'D-2', tracking_number: 'T', custom_variables: many }])
  t.match(keys.body.error, /trackers\.0\.custom_variables: must hold at most 512 keys/)
})

t.test('each route takes the body it needs; nesting past what any route needs is refused unparsed', async (t) => {
  const server = await startTestServer(t)
  const estimation = await server.request('POST', '/v1/delivery_date_estimation', {
    body: { delivery_date_estimation: { origin: { country_code: 'FR' }, note: 'x'.repeat(20_000) } },
    key: server.publicKey,
  })
  t.equal(estimation.status, 413, 'the estimation, which the public key may ask, takes a few KB')
  const account = await server.request('PATCH', '/v2/account', { body: { language_code: 'fr', x: 'y'.repeat(70_000) } })
  t.equal(account.status, 413, 'a setting takes 64 KB at most')
  t.same(account.body, { errors: { details: 'Body is larger than 64 KB, the limit' } }, 'in the v2 form, naming it')
  t.same(estimation.body, { error: 'Body is larger than 16 KB, the limit' }, 'in the v1 form on a v1 route')
  const order = await server.request('POST', '/v2/orders', { body: { merchant_id: 'x', note: 'y'.repeat(1_100_000) } })
  t.same(order.body, { errors: { details: 'Body is larger than 1 MB, the limit' } })
  const batch = Array.from({ length: 1000 }, (_, i) => ({
    order_number: `N-${i}`,
    tracking_number: `T-${i}`,
    first_name: 'x'.repeat(100),
  }))
  t.equal((await postTrackers(server, batch)).status, 201, 'a batch takes its size')

  for (const [path, key] of [
    ['/v1/trackers', server.privateKey],
    ['/v1/delivery_date_estimation', server.publicKey],
  ] as const) {
    const nested = `${'['.repeat(5_000)}${']'.repeat(5_000)}`
    const refused = await server.request('POST', path, {
      body: nested,
      key,
      headers: { 'content-type': 'application/json' },
    })
    t.equal(refused.status, 400, path)
    t.match(refused.body, { error: 'Body nests deeper than 32 levels' }, path)
  }
  const inString = await postTrackers(server, [
    { order_number: 'S-1', tracking_number: 'T', first_name: '[[[[{{{{'.repeat(20) },
  ])
  t.equal(inString.status, 201, 'brackets inside a string are text, not nesting')
})

t.test('an e-mail field takes one address, never a list or a folded header', async (t) => {
  const server = await startTestServer(t)
  for (const email of [
    'a@x.test, b@y.test\r\nBcc: c@z.test',
    'a@x.test\nBcc: c@z.test',
    'a@x.test;b@y.test',
    'nobody',
  ]) {
    const tracker = await postTrackers(server, [{ order_number: 'E-1', tracking_number: 'T', email }])
    t.same(tracker.body, { error: 'trackers.0.email: must be one e-mail address' }, JSON.stringify(email))
    const order = await server.request('POST', '/v2/orders', { body: { merchant_id: 'E-1', email } })
    t.match(order, { status: 400, body: { errors: { email: 'must be one e-mail address' } } })
  }
  t.equal(
    (await postTrackers(server, [{ order_number: 'E-1', tracking_number: 'T', email: 'jo.o+tag@example.co.uk' }]))
      .status,
    201,
  )
})

t.test('an order holds at most 500 trackers', async (t) => {
  const server = await startTestServer(t)
  const batch = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ order_number: 'BIG', tracking_number: `T-${from + i}` }))
  t.equal((await postTrackers(server, batch(0, 500))).status, 201)
  const over = await postTrackers(server, batch(500, 1))
  t.equal(over.status, 400)
  t.match(over.body.error, /more than 500 trackers/)
  t.equal((await postTrackers(server, batch(0, 1))).status, 201, 'updating one that is there is fine')
})

/** Sends raw bytes as one HTTP request and gives the status line's code. */
function rawRequest(port: number, head: string, body: string) {
  return new Promise<number>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
    )
    let text = ''
    socket.on('data', (d) => {
      text += d
    })
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])))
    socket.on('error', reject)
  })
}

t.test('a malformed multipart upload is a 400 naming the file part, never a 500', async (t) => {
  const server = await startTestServer(t)
  const noBoundary = await server.request('POST', '/v2/pickup_points/import', {
    body: 'merchant_id;name\n',
    headers: { 'content-type': 'multipart/form-data' },
  })
  t.equal(noBoundary.status, 400)
  t.match(noBoundary.body.errors, { details: /multipart/, file: /could not be read/ })
  const truncated = await server.request('POST', '/v2/pickup_points/import', {
    body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\nmerchant_id;na',
    headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
  })
  t.equal(truncated.status, 400)
  t.match(truncated.body.errors, { file: /could not be read/ })
  const port = Number(new URL(server.url).port)
  const status = await rawRequest(
    port,
    `POST /v2/pickup_points/import HTTP/1.1\r\nHost: x\r\nAuthorization: ${server.privateKey}\r\nContent-Type: multipart/form-data; boundary=B\r\nConnection: close`,
    '--B\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nhalf a fi',
  )
  t.equal(status, 400)
})

t.test('requests without a key are rate limited per client address, behind the gateway too', async (t) => {
  const server = await startTestServer(t, { env: { RATE_LIMIT_PER_MINUTE: '50', TRUST_PROXY: '127.0.0.1' } })
  const statuses: number[] = []
  for (let i = 0; i < 60; i++) statuses.push((await server.request('GET', '/v2/orders', { key: '' })).status)
  t.equal(statuses.filter((s) => s === 401).length, 50)
  t.equal(statuses.filter((s) => s === 429).length, 10)
  const limited = await server.request('GET', '/v2/orders', { key: '' })
  t.equal(limited.status, 429)
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After')
  const elsewhere = await server.request('GET', '/v2/orders', {
    key: '',
    headers: { 'x-forwarded-for': '203.0.113.9' },
  })
  t.equal(elsewhere.status, 401, 'another client behind the gateway has its own budget')
  t.equal((await server.request('GET', '/v2/orders')).status, 200, 'a key has its own budget')
  t.equal((await server.request('GET', '/healthz', { key: '' })).status, 200)
  const keyed: number[] = []
  for (let i = 0; i < 55; i++) {
    keyed.push(
      (await server.request('GET', '/v2/orders', { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status,
    )
  }
  t.equal(keyed.filter((s) => s === 429).length, 6, 'a key is limited across every address it comes from')

  // A fresh bogus key at each request is counted against the sender's address, not a bucket of its own.
  const bogus: number[] = []
  for (let i = 0; i < 55; i++) {
    bogus.push(
      (
        await server.request('GET', '/v2/orders', {
          key: `sk_bogus${i}`,
          headers: { 'x-forwarded-for': '192.0.2.77' },
        })
      ).status,
    )
  }
  t.equal(bogus.filter((s) => s === 401).length, 50)
  t.equal(bogus.filter((s) => s === 429).length, 5, 'bogus keys share their sender’s budget')
})

t.test('under memory pressure requests are shed with 503 and Retry-After; health still answers', async (t) => {
  // 1 % of V8's heap limit: this test process is always above it.
  const server = await startTestServer(t, { env: { LOAD_SHED_HEAP_PERCENT: '1' } })
  let shed = await server.request('GET', '/v2/orders')
  for (let i = 0; i < 100 && shed.status !== 503; i++) {
    await new Promise((r) => setTimeout(r, 50))
    shed = await server.request('GET', '/v2/orders')
  }
  t.equal(shed.status, 503)
  t.equal(shed.headers.get('retry-after'), '10')
  t.match(shed.body.errors, { details: /memory pressure/ })
  t.equal((await server.request('GET', '/healthz', { key: '' })).status, 200)
})

t.test(
  'slow clients are cut off; bodies over the limit are refused per route; 500 connections at once are served',
  async (t) => {
    const server = await startTestServer(t, {
      env: { REQUEST_TIMEOUT_MS: '1000', BODY_LIMIT: '4096', RATE_LIMIT_PER_MINUTE: '100000' },
    })
    const { port } = new URL(server.url)
    // A client that sends its headers and then a trickle of body, never the end.
    const socket = connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    await once(socket, 'connect')
    socket.write(
      `POST /v1/trackers HTTP/1.1\r\nHost: x\r\nAuthorization: ${server.privateKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"trackers":[`,
    )
    const sentAt = performance.now()
    const trickle = setInterval(() => socket.write(' '), 200)
    const answer = await new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (d) => (text += d.toString()))
      socket.on('close', () => resolve(text))
    })
    clearInterval(trickle)
    t.match(answer, /^HTTP\/1\.1 408/, 'a slow client gets 408 and its connection closed')
    // The timeout and some slack: a cut-off left to Node's own check of arriving requests came a minute late.
    t.ok(performance.now() - sentAt < 4000, 'within a few seconds of REQUEST_TIMEOUT_MS')

    const big = JSON.stringify({
      trackers: [{ order_number: 'B', tracking_number: 'B', custom_variables: { x: 'y'.repeat(5000) } }],
    })
    for (const path of ['/v1/trackers', '/v2/orders', '/v2/trackers/events', '/v2/webhook_endpoints']) {
      const response = await server.request('POST', path, {
        body: big,
        headers: { 'content-type': 'application/json' },
      })
      t.equal(response.status, 413, `${path}: a body over BODY_LIMIT is refused`)
    }

    const answers = await Promise.all(
      Array.from({ length: 500 }, () =>
        fetch(`${server.url}/v2/orders?limit=1`, { headers: { authorization: server.privateKey } }).then(
          (r) => r.status,
          () => 0,
        ),
      ),
    )
    t.same([...new Set(answers)], [200], '500 concurrent requests all answered 200')
  },
)
