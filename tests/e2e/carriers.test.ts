import t, { type Test } from 'tap'
import {
  CREDENTIALS,
  detectionCases,
  type CarrierServer,
  POSTNL_KEY,
  startCarrierServer,
} from '../support/carrier-api.ts'
import { get, signedIn } from '../support/console.ts'
import { freePort } from '../support/process.ts'
import { until } from '../support/progress.ts'
import { startReceiver } from '../support/receiver.ts'
import { postTrackers, startTestServer, trackerOf } from '../support/server.ts'
import { startMailbox } from '../support/smtp.ts'

/*
 * UPS, FedEx, USPS, PostNL, GLS and Royal Mail end to end: the real service
 * polling a local HTTP server that answers with each API's documented
 * request and response shapes (never the carriers themselves), every second,
 * then telling the merchant (a webhook receiver on loopback) and the customer
 * (a real SMTP server on loopback).
 */

const carriers = ['ups', 'fedex', 'usps', 'postnl', 'gls', 'royal_mail'] as const

const credentials = (url: string) => ({
  SHIPLOG_UPS_API_URL: url,
  SHIPLOG_UPS_CLIENT_ID: CREDENTIALS.id,
  SHIPLOG_UPS_CLIENT_SECRET: CREDENTIALS.secret,
  SHIPLOG_FEDEX_API_URL: url,
  SHIPLOG_FEDEX_CLIENT_ID: CREDENTIALS.id,
  SHIPLOG_FEDEX_CLIENT_SECRET: CREDENTIALS.secret,
  SHIPLOG_USPS_API_URL: url,
  SHIPLOG_USPS_CLIENT_ID: CREDENTIALS.id,
  SHIPLOG_USPS_CLIENT_SECRET: CREDENTIALS.secret,
  SHIPLOG_POSTNL_API_URL: url,
  SHIPLOG_POSTNL_API_KEY: POSTNL_KEY,
  SHIPLOG_GLS_API_URL: url,
  SHIPLOG_GLS_USERNAME: CREDENTIALS.id,
  SHIPLOG_GLS_PASSWORD: CREDENTIALS.secret,
  SHIPLOG_ROYALMAIL_API_URL: url,
  SHIPLOG_ROYALMAIL_CLIENT_ID: CREDENTIALS.id,
  SHIPLOG_ROYALMAIL_CLIENT_SECRET: CREDENTIALS.secret,
})

const start = (t: Test, carrier: CarrierServer, env: Record<string, string> = {}) =>
  startTestServer(t, {
    env: {
      ...credentials(carrier.url),
      SHIPLOG_POLL_INTERVAL: '1',
      SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true',
      ...env,
    },
  })

t.test('each carrier: created, polled, moved to delivered, the merchant and the customer told', async (t) => {
  const carrier = await startCarrierServer(t)
  const mailbox = await startMailbox(t)
  const receiver = await startReceiver(t)
  const server = await start(t, carrier, { SMTP_URL: mailbox.url })
  const endpoint = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: receiver.url, enabled_events: ['tracker.status_changed'] },
  })
  t.equal(endpoint.status, 201)
  const created = await postTrackers(
    server,
    carriers.map((code) => ({
      order_number: `C-${code}`,
      tracking_number: `${code.toUpperCase()}-OK`,
      carrier_code: code,
      email: `${code}@example.com`,
    })),
  )
  t.equal(created.status, 201)
  for (const code of carriers) {
    const tracker = await until(
      () => trackerOf(server, `${code.toUpperCase()}-OK`),
      (tr) => tr.delivery_status_code === 'in_transit',
    )
    t.equal(tracker.events.data.length, 2, `${code}: polled, its events recorded`)
    t.equal(tracker.displayable_expected_delivery_kind, 'carrier', `${code}: the carrier's expected delivery`)
    carrier.stage.set(`${code.toUpperCase()}-OK`, 'delivered')
  }
  for (const code of carriers) {
    const delivered = await until(
      () => trackerOf(server, `${code.toUpperCase()}-OK`),
      (tr) => tr.delivery_status_code === 'delivered',
    )
    t.equal(delivered.events.data.length, 3, `${code}: delivered on a later poll, no event twice`)
  }
  const mails = await until(
    async () => mailbox.messages.filter((m) => /has been delivered/.test(m.subject ?? '')),
    (m) => m.length === carriers.length,
  )
  t.same(
    mails.map((m) => m.subject).sort(),
    carriers.map((c) => `Your order C-${c} has been delivered`).sort(),
    'each customer is told',
  )
  const hooks = await until(
    async () =>
      receiver.received.filter((r) => r.json.data.object.delivery_status_code === 'delivered').map((r) => r.json),
    (h) => h.length === carriers.length,
  )
  t.same(
    hooks.map((h) => h.data.object.carrier.code).sort(),
    [...carriers].sort(),
    'the merchant is told of each, signed',
  )
  t.equal(carrier.tokens.get('ups'), 1, 'one OAuth token per API, kept until it expires')
  const metrics = await (await fetch(`${server.url}/metrics`)).text()
  for (const code of carriers)
    t.match(metrics, new RegExp(`shiplog_carrier_requests_total\\{carrier="${code}",outcome="found"\\} [1-9]`))
})

t.test('a number without a carrier is detected and polled; a corrected carrier is the one asked next', async (t) => {
  const carrier = await startCarrierServer(t)
  const server = await start(t, carrier)
  await postTrackers(server, [
    { order_number: 'D-1', tracking_number: '3SABCD1234567' },
    { order_number: 'D-2', tracking_number: 'RR123456785GB', carrier_code: 'evri' },
  ])
  const detected = await until(
    () => trackerOf(server, '3SABCD1234567'),
    (tr) => tr.events.data.length === 2,
  )
  t.match(detected, {
    carrier: { code: 'postnl' },
    tracking_link: /jouw\.postnl\.nl/,
    delivery_status_code: 'in_transit',
  })
  t.equal(carrier.requests.get('RR123456785GB'), undefined, 'Evri is not polled')
  const corrected = await postTrackers(server, [
    { order_number: 'D-2', tracking_number: 'RR123456785GB', carrier_code: 'royal_mail' },
  ])
  t.equal(corrected.status, 201)
  const moved = await until(
    () => trackerOf(server, 'RR123456785GB'),
    (tr) => tr.events.data.length === 2,
  )
  t.match(moved, { carrier: { code: 'royal_mail' }, delivery_status_code: 'in_transit' })
})

t.test("polls wait past the day's budget, never fail; GET /v2/carrier_apis tells the day", async (t) => {
  const carrier = await startCarrierServer(t)
  const server = await start(t, carrier, {
    SHIPLOG_GLS_MAX_REQUESTS_PER_DAY: '0',
    SHIPLOG_USPS_MAX_REQUESTS_PER_DAY: '2',
  })
  await postTrackers(
    server,
    ['B1-OK', 'B2-OK', 'B3-OK', 'B4-500'].map((n, i) => ({
      order_number: `B-${i}`,
      tracking_number: n,
      carrier_code: i < 3 ? 'usps' : 'ups',
    })),
  )
  const apis = await until(
    async () => (await server.request('GET', '/v2/carrier_apis')).body.data,
    (list: { api: string; requests_today: number; last_error: unknown }[]) =>
      list.find((a) => a.api === 'usps')?.requests_today === 2 &&
      list.find((a) => a.api === 'ups')?.last_error !== null,
  )
  const usps = apis.find((a: { api: string }) => a.api === 'usps')
  t.match(usps, {
    object: 'carrier_api',
    carrier_codes: ['usps'],
    configured: true,
    daily_budget: 2,
    requests_today: 2,
    budget_left: 0,
    last_error: null,
  })
  t.match(
    apis.find((a: { api: string }) => a.api === 'gls'),
    { daily_budget: null, budget_left: null },
  )
  t.match(
    apis.find((a: { api: string }) => a.api === 'ups'),
    {
      last_error: { message: 'answered 500', at: Number },
    },
  )
  t.match(
    apis.find((a: { api: string }) => a.api === 'dhl'),
    { configured: false, daily_budget: 250 },
  )
  // The console's overview says so, each line leading to the carriers' settings.
  const cookies = await signedIn(server)
  const overview = (await get(server, '/console', cookies)).html
  t.match(overview, 'The usps API has used 100 % of today’s budget (2 of 2 requests).')
  t.match(overview, /<a href="\/console\/settings\/carriers">The ups API failed at [^<]+: answered 500<\/a>/)
  t.notMatch(overview, 'All integrations OK')
  await new Promise((r) => setTimeout(r, 2500))
  const asked = ['B1-OK', 'B2-OK', 'B3-OK'].filter((n) => carrier.requests.has(n))
  t.equal(asked.length, 2, 'the third waits for tomorrow')
  const waiting = ['B1-OK', 'B2-OK', 'B3-OK'].find((n) => !carrier.requests.has(n))!
  t.equal((await trackerOf(server, waiting)).delivery_status_code, 'pending', 'waiting, not failed')
  const metrics = await (await fetch(`${server.url}/metrics`)).text()
  t.match(metrics, /shiplog_carrier_requests_total\{carrier="usps",outcome="over_budget"\} [1-9]/)
})

t.test('every detection rule, through POST /v1/trackers', async (t) => {
  const carrier = await startCarrierServer(t)
  const server = await start(t, carrier, { SHIPLOG_POLL_INTERVAL: '3600' })
  const created = await postTrackers(
    server,
    detectionCases.map(([number], i) => ({ order_number: `DR-${i}`, tracking_number: number })),
  )
  t.equal(created.status, 201)
  for (const [number, code] of detectionCases) {
    const tracker = await trackerOf(server, number)
    t.equal(tracker.carrier?.code ?? null, code, number)
    if (code) t.match(tracker.tracking_link, /^https:\/\//, `${number}: the carrier's tracking page`)
  }
  const apis = (await server.request('GET', '/v2/carrier_apis')).body.data
  t.same(
    Object.fromEntries(apis.map((a: { api: string; daily_budget: number | null }) => [a.api, a.daily_budget])),
    { dhl: 250, laposte: null, ups: null, fedex: 100000, usps: 1440, postnl: null, gls: null, royal_mail: null },
    'the published daily limits, unless set',
  )
})

t.test('GET /v2/carrier_apis answers while Redis is away, without the day', async (t) => {
  const server = await startTestServer(t, {
    roles: ['command', 'query', 'projector'],
    env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, SHIPLOG_POSTNL_API_KEY: POSTNL_KEY },
  })
  // Held until Redis came back, it would never answer: the signal fails the request instead of tap's timeout.
  const answer = await fetch(`${server.url}/v2/carrier_apis`, {
    headers: { authorization: `Bearer ${server.privateKey}` },
    signal: AbortSignal.timeout(30_000),
  })
  const apis = { status: answer.status, body: (await answer.json()) as { data: { api: string }[] } }
  t.equal(apis.status, 200, 'answered without Redis')
  t.match(
    apis.body.data.find((a: { api: string }) => a.api === 'postnl'),
    { configured: true, requests_today: null, budget_left: null, last_error: null },
  )
})
