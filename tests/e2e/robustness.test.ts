import t from 'tap'
import { postTrackers, readAfter, startTestServer } from '../support/server.ts'

t.test('any merchant string is a safe order number and tracking number', async (t) => {
  const server = await startTestServer(t)
  const odd = [
    'A/B?#%&=',
    'order 42 ✓',
    '../../etc/passwd',
    'x'.repeat(250), // near the longest identifier allowed (255)
    "O'Brien; DROP TABLE orders",
    '-_-',
    'ÅÄÖ-€',
  ]
  const post = await postTrackers(
    server,
    odd.map((n, i) => ({ order_number: n, tracking_number: `${n}#${i}` })),
  )
  t.equal(post.status, 201)
  for (const n of odd) {
    const found = await readAfter(
      server,
      `/v2/orders?order_number=${encodeURIComponent(n)}&expand[]=fulfillments.trackers.carrier`,
      post.position,
    )
    t.equal(found.body.data.length, 1, n)
    t.equal(found.body.data[0]?.order_number, n)
  }
})

t.test('bad bodies get a 400 naming the problem, never a 500', async (t) => {
  const server = await startTestServer(t)
  const cases: [unknown, RegExp][] = [
    [[], /Wrong data type for keys: body/],
    [null, /./],
    ['"trackers"', /Wrong data type/],
    [{ trackers: [null] }, /trackers\.0/],
    [{ trackers: [[]] }, /trackers\.0/],
    [
      { trackers: [{ order_number: '', tracking_number: ' ' }] },
      /trackers\.0\.order_number: must not be empty; trackers\.0\.tracking_number: must not be empty/,
    ],
    [
      { trackers: [{ order_number: 'A', tracking_number: 'B', custom_variables: [1, 2] }] },
      /trackers\.0\.custom_variables/,
    ],
    [{ trackers: [{ order_number: 'A', tracking_number: 'B', expected_delivery_at: 1e300 }] }, /./],
  ]
  for (const [body, message] of cases) {
    const r = await server.request('POST', '/v1/trackers', {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    })
    t.ok(r.status >= 400 && r.status < 500, `${JSON.stringify(body)} → ${r.status}`)
    t.match(r.body.error, message)
  }
  // Each odd query has one answer: a bracketed or repeated scalar is the wrong type, an unknown path is named.
  const queries: [query: string, status: number, details?: RegExp][] = [
    ['limit[]=1', 400, /^Wrong data type for keys: limit$/],
    ['created_at[gt][x]=1', 400, /^Wrong data type for keys: created_at$/],
    ['expand=shipping_address', 200],
    ['expand[]=&limit=5', 400, /^Unknown expand\[\] path: \. Allowed: shipping_address, /],
    ['ending_before=1e400', 400, /^Wrong data type for keys: ending_before$/],
    ['order_number[]=a', 400, /^Wrong data type for keys: order_number$/],
  ]
  for (const [q, status, details] of queries) {
    const r = await server.request('GET', `/v2/orders?${q}`)
    t.equal(r.status, status, q)
    if (details) t.match(r.body.errors.details, details, q)
    else t.match(r.body, { object: 'list', data: [] }, q)
  }
})
