import fc from 'fast-check'
import t from 'tap'
import { startTestServer } from '../support/server.ts'

/*
 * Hostile input against every write and read route: malformed bodies, wrong
 * types, huge and deeply nested values, odd Unicode, bad ids and cursors,
 * wrong content types. Seeded and bounded, so a failure is repeatable. No
 * answer may be a 5xx, the server must keep answering, and a rejected request
 * must leave no trace in the log.
 */

const SEED = 20261123
const RUNS = Number(process.env.FUZZ_RUNS ?? 40)

/** Values of every JSON shape, with odd strings and some deep nesting. */
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom('', ' ', '\u0000', '\uD800', '\u202E', 'null', '-1', '1e309', '9'.repeat(40), 'a'.repeat(5000)),
  fc.integer({ min: 1, max: 60 }).map((depth) => {
    let v: unknown = 'deep'
    for (let i = 0; i < depth * 20; i++) v = { a: [v] }
    return v
  }),
)

/** A body shaped like the route's (its keys), with hostile values, or anything at all. */
const bodyLike = (keys: readonly string[]) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...keys), hostileValue, { maxKeys: keys.length }),
    fc.record(
      Object.fromEntries(
        keys.map((k) => [
          k,
          fc.array(fc.dictionary(fc.string({ maxLength: 20 }), hostileValue, { maxKeys: 6 }), { maxLength: 3 }),
        ]),
      ),
    ),
    hostileValue,
  )

const ids = fc.oneof(
  fc.constantFrom('0', '-1', 'abc', '1.5', '9'.repeat(30), '%00', '..%2F..', 'null', ' '),
  fc.bigInt({ min: 1n, max: 2n ** 63n }).map(String),
)

const routes: { method: string; path: fc.Arbitrary<string>; body?: fc.Arbitrary<unknown> }[] = [
  { method: 'POST', path: fc.constant('/v1/trackers'), body: bodyLike(['trackers']) },
  { method: 'POST', path: fc.constant('/v2/trackers/events'), body: bodyLike(['events']) },
  {
    method: 'POST',
    path: fc.constant('/v2/orders'),
    body: bodyLike(['merchant_id', 'order_number', 'line_items', 'fulfillments', 'shipping_address', 'email']),
  },
  { method: 'POST', path: fc.constant('/v2/orders/batch_create'), body: bodyLike(['orders']) },
  {
    method: 'POST',
    path: fc.constant('/v2/webhook_endpoints'),
    body: bodyLike(['url', 'enabled_events', 'description']),
  },
  { method: 'PATCH', path: ids.map((id) => `/v2/webhook_endpoints/${id}`), body: bodyLike(['url', 'status']) },
  {
    method: 'POST',
    path: ids.map((id) => `/v2/webhook_endpoints/${id}/replay`),
    body: bodyLike(['since', 'from_position']),
  },
  { method: 'POST', path: ids.map((id) => `/v2/trackers/${id}/refresh`) },
  { method: 'PATCH', path: fc.constant('/v2/account'), body: bodyLike(['language_code']) },
  {
    method: 'PATCH',
    path: fc.string({ maxLength: 20 }).map((s) => `/v2/notification_types/${encodeURIComponent(s)}`),
    body: bodyLike(['enabled']),
  },
  {
    method: 'PUT',
    path: fc
      .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
      .map(([a, b]) => `/v2/carrier_services/${encodeURIComponent(a)}/${encodeURIComponent(b)}`),
    body: bodyLike(['name', 'transit_days', 'cutoff_time', 'time_zone', 'pickup_days', 'delivery_days']),
  },
  { method: 'POST', path: fc.constant('/v1/delivery_date_estimation'), body: bodyLike(['delivery_date_estimation']) },
  {
    method: 'GET',
    path: fc
      .tuple(
        fc.constantFrom('/v2/orders', '/v2/trackers', '/v2/webhook_endpoints', '/v2/pickup_points'),
        fc.constantFrom('limit', 'starting_after', 'ending_before', 'created_at[gt]', 'expand[]', 'as_of', 'status'),
        fc.string({ maxLength: 30 }),
      )
      .map(([path, key, value]) => `${path}?${key}=${encodeURIComponent(value)}`),
  },
  {
    method: 'GET',
    path: fc
      .tuple(
        fc.constantFrom('/v2/orders/', '/v2/jobs/', '/v2/webhook_endpoints/', '/v2/notifications/'),
        ids,
        fc.constantFrom('', '/history', '/deliveries', '/preview'),
      )
      .map(([a, id, b]) => `${a}${id}${b}`),
  },
]

t.test('hostile input never gets a 5xx, never stops the server, and a refusal writes nothing', async (t) => {
  const server = await startTestServer(t)
  let requests = 0
  for (const route of routes) {
    const request = fc.record({
      path: route.path,
      body: route.body ?? fc.constant(undefined),
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
      ),
      raw: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(request, async ({ path, body, contentType, raw }) => {
        requests++
        const before = await server.runtime.eventStore.head()
        const requestId = `fuzz-${requests}`
        const text =
          body === undefined ? undefined : raw ? String(JSON.stringify(body)).slice(0, -1) : JSON.stringify(body)
        const response = await fetch(`${server.url}${path}`, {
          method: route.method,
          headers: {
            authorization: server.privateKey,
            'x-request-id': requestId,
            ...(text === undefined ? {} : { 'content-type': contentType }),
          },
          body: text,
        })
        await response.arrayBuffer()
        if (response.status >= 500) throw new Error(`${route.method} ${path} answered ${response.status}`)
        if (response.status < 400) return
        // Jobs and reactions may write meanwhile: what matters is that nothing of this request was.
        const written = await server.runtime.eventStore.readAll({ after: before, limit: 10_000 })
        if (written.some((e) => e.metadata.correlationId === requestId)) {
          throw new Error(`${route.method} ${path} was refused (${response.status}) but wrote to the log`)
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    )
  }
  const health = await fetch(`${server.url}/healthz`)
  t.equal(health.status, 200, `the server still answers after ${requests} hostile requests`)
})
