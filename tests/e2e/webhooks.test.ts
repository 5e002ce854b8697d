import { statSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { waitForJob } from '../support/jobs.ts'
import { queueDrained, reactionPassed } from '../support/progress.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { postTrackers, readAfter, startTestServer, type TestServer } from '../support/server.ts'
import { tempDir } from '../support/temp.ts'

/*
 * Webhooks end to end: the real service, a real receiver on loopback (hence
 * SHIPLOG_WEBHOOK_ALLOW_PRIVATE), signatures checked with the standardwebhooks
 * library as a merchant's receiver would check them.
 */

const T0 = 1_795_000_000

const start = (t: Test, env: Record<string, string> = {}) =>
  startTestServer(t, { env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true', SHIPLOG_WEBHOOK_RETRY_SCHEDULE: '1,1', ...env } })

async function createEndpoint(
  server: TestServer,
  receiver: Receiver,
  body: Record<string, unknown> = {},
  key?: string,
) {
  const created = await server.request('POST', '/v2/webhook_endpoints', { body: { url: receiver.url, ...body }, key })
  if (created.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(created.body)}`)
  return created.body as { id: number; secret: string }
}

/** Verifies every request's signature with the endpoint's secret, as the README tells receivers to. */
function verified(t: Test, secret: string, received: Receiver['received']) {
  for (const r of received) {
    t.doesNotThrow(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>), 'signature verifies')
  }
  return received.map((r) => r.json)
}

async function deliveries(server: TestServer, endpointId: number, until: (log: any[]) => boolean) {
  for (let i = 0; i < 400; i++) {
    const log = await server.request('GET', `/v2/webhook_endpoints/${endpointId}/deliveries?limit=100`)
    if (log.status === 200 && until(log.body.data)) return log.body.data as any[]
    await new Promise((r) => setTimeout(r, 50))
  }
  const log = await server.request('GET', `/v2/webhook_endpoints/${endpointId}/deliveries?limit=100`)
  throw new Error(`the delivery log did not reach the expected state: ${JSON.stringify(log.body)}`)
}

t.test('endpoints: create shows the secret once, then read, list, change, rotate and delete', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  const created = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: receiver.url, description: 'ERP', enabled_events: ['tracker.status_changed'] },
  })
  t.equal(created.status, 201)
  t.match(created.body, {
    object: 'webhook_endpoint',
    id: Number,
    url: receiver.url,
    enabled_events: ['tracker.status_changed'],
    description: 'ERP',
    status: 'enabled',
    created_at: Number,
    secret: /^whsec_[A-Za-z0-9+/]{43}=$/,
  })
  const id = created.body.id
  const position = created.headers.get('x-shiplog-position') ?? undefined
  const one = await readAfter(server, `/v2/webhook_endpoints/${id}`, position)
  t.equal(one.status, 200)
  t.notOk('secret' in one.body, 'the secret is never shown again')
  const list = await server.request('GET', '/v2/webhook_endpoints')
  t.match(list.body, { object: 'list', has_more: false, data: [{ id }] })

  const changed = await server.request('PATCH', `/v2/webhook_endpoints/${id}`, {
    body: { status: 'disabled', enabled_events: ['*'] },
  })
  t.equal(changed.status, 200)
  t.match(changed.body, { status: 'disabled', enabled_events: ['*'], description: 'ERP' })
  const filtered = await server.request('GET', '/v2/webhook_endpoints?status=enabled')
  t.same(filtered.body.data, [], 'a status filter')

  const rotated = await server.request('POST', `/v2/webhook_endpoints/${id}/rotate_secret`)
  t.equal(rotated.status, 200)
  t.match(rotated.body.secret, /^whsec_/)
  t.not(rotated.body.secret, created.body.secret)

  const deleted = await server.request('DELETE', `/v2/webhook_endpoints/${id}`)
  t.match(deleted, { status: 200, body: { object: 'webhook_endpoint', id, deleted: true } })
  const gone = await readAfter(server, `/v2/webhook_endpoints/${id}`, deleted.headers.get('x-shiplog-position')!)
  t.equal(gone.status, 404)
  t.equal((await server.request('PATCH', `/v2/webhook_endpoints/${id}`, { body: { status: 'enabled' } })).status, 404)
  t.same((await server.request('GET', '/v2/webhook_endpoints')).body.data, [], 'a deleted endpoint is not listed')
})

t.test('bad input is refused naming the field, and writes nothing', async (t) => {
  const server = await start(t)
  const bad = [
    [{ url: 'ftp://example.com/hook' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{}, 'url'],
    [{ url: 'https://example.com/h', enabled_events: ['order.shipped'] }, 'enabled_events.0'],
    [{ url: 'https://example.com/h', enabled_events: [] }, 'enabled_events'],
    [{ url: 'https://example.com/h', description: 7 }, 'description'],
  ] as const
  for (const [body, field] of bad) {
    const response = await server.request('POST', '/v2/webhook_endpoints', { body })
    t.equal(response.status, 400, JSON.stringify(body))
    t.ok(field in (response.body.errors ?? {}), `names ${field}: ${JSON.stringify(response.body)}`)
  }
  const replay = await server.request('POST', '/v2/webhook_endpoints/1/replay', { body: { since: 'yesterday' } })
  t.equal(replay.status, 400)
  t.same((await server.request('GET', '/v2/webhook_endpoints')).body.data, [])
  const publicKey = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: 'https://example.com/h' },
    key: server.publicKey,
  })
  t.equal(publicKey.status, 403, 'the public key cannot manage webhooks')
})

t.test('receivers on private, loopback and link-local addresses are refused unless allowed', async (t) => {
  const server = await startTestServer(t)
  for (const url of [
    'http://127.0.0.1:8080/h',
    'http://localhost/h',
    'http://10.1.2.3/h',
    'http://192.168.0.10/h',
    'http://169.254.169.254/latest',
    'http://[::1]/h',
    'http://[fd00::1]/h',
    'http://0.0.0.0/h',
  ]) {
    const response = await server.request('POST', '/v2/webhook_endpoints', { body: { url } })
    t.equal(response.status, 400, url)
    t.match(response.body.errors?.url, /refused/, url)
  }
})

t.test('messages are signed, carry the resource as GET renders it, and arrive for each change', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  const endpoint = await createEndpoint(server, receiver)
  const created = await postTrackers(server, [{ order_number: 'W-1', tracking_number: 'TN-W1', carrier_code: 'dhl' }])
  const [orderCreated, trackerCreated] = verified(t, endpoint.secret, await receiver.waitFor(2)).sort((a, b) =>
    a.type.localeCompare(b.type),
  )
  t.match(orderCreated, {
    type: 'order.created',
    timestamp: /^\d{4}-\d\d-\d\dT/,
    position: /^\d+$/,
    data: { object: { object: 'order', order_number: 'W-1' } },
  })
  const order = await readAfter(server, '/v2/orders?order_number=W-1', created.position)
  t.same(orderCreated.data.object.id, order.body.data[0].id)
  t.match(trackerCreated, {
    type: 'tracker.created',
    data: { object: { object: 'tracker', tracking_number: 'TN-W1' } },
  })
  t.equal(receiver.received[0]!.headers['webhook-id'], `msg_${receiver.received[0]!.json.position}`)
  t.equal(receiver.received.length, 2, 'a new order is order.created and tracker.created, nothing more')

  await server.request('POST', '/v2/trackers/events', {
    body: { events: [{ tracking_number: 'TN-W1', event_type_code: 'delivered', happened_at: T0 }] },
  })
  const later = verified(t, endpoint.secret, (await receiver.waitFor(4)).slice(2))
  const byType = Object.fromEntries(later.map((m) => [m.type, m]))
  t.match(byType['tracker.event_added'], { data: { object: { delivery_status_code: 'delivered' } } })
  t.match(byType['tracker.status_changed'], {
    data: { object: { delivery_status_code: 'delivered' }, previous: { delivery_status_code: 'pending' } },
  })
  const log = await deliveries(server, endpoint.id, (l) => l.length === 4 && l.every((d) => d.status === 'succeeded'))
  t.match(log[0], {
    object: 'webhook_delivery',
    webhook_id: /^msg_\d+$/,
    status: 'succeeded',
    attempts: 1,
    last_status_code: 200,
    last_error: null,
    next_attempt_at: null,
    delivered_at: Number,
  })
})

t.test('enabled_events filters, and a test message goes to the endpoint asked', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  const endpoint = await createEndpoint(server, receiver, { enabled_events: ['tracker.status_changed'] })
  await postTrackers(server, [{ order_number: 'F-1', tracking_number: 'TN-F1', carrier_code: 'dhl' }])
  await server.request('POST', '/v2/trackers/events', {
    body: { events: [{ tracking_number: 'TN-F1', event_type_code: 'transit', happened_at: T0 }] },
  })
  const tested = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/test`)
  t.equal(tested.status, 202)
  const received = verified(t, endpoint.secret, await receiver.waitFor(2))
  await reactionPassed(server, 'webhooks', tested.headers.get('x-shiplog-position')!)
  await queueDrained(server, 'webhooks')
  t.same(
    receiver.received.map((r) => r.json.type).sort(),
    ['tracker.status_changed', 'webhook.test'],
    'only the subscribed type, and the test',
  )
  t.match(
    received.find((m) => m.type === 'webhook.test'),
    { data: { object: { object: 'webhook_endpoint', id: endpoint.id } } },
  )
})

t.test('a failed attempt is retried with the same webhook-id, then succeeds or fails for good', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  receiver.answers.push(500, 302)
  const endpoint = await createEndpoint(server, receiver, { enabled_events: ['order.created'] })
  await postTrackers(server, [{ order_number: 'R-1', tracking_number: 'TN-R1', carrier_code: 'dhl' }])
  const attempts = await receiver.waitFor(3)
  t.equal(new Set(attempts.map((a) => a.headers['webhook-id'])).size, 1, 'one webhook-id across retries')
  verified(t, endpoint.secret, attempts)
  const [delivered] = await deliveries(server, endpoint.id, (l) => l[0]?.status === 'succeeded')
  t.match(delivered, { attempts: 3, last_status_code: 200, last_error: null })

  receiver.fallback = 503
  await postTrackers(server, [{ order_number: 'R-2', tracking_number: 'TN-R2', carrier_code: 'dhl' }])
  const log = await deliveries(server, endpoint.id, (l) => l.some((d) => d.status === 'failed'))
  t.match(
    log.find((d) => d.status === 'failed'),
    { attempts: 3, last_status_code: 503, last_error: 'answered 503', next_attempt_at: null, delivered_at: null },
    'failed once the retry schedule (two retries here) is spent',
  )
})

t.test('one message of the delivery log is sent again, now, under its webhook-id', async (t) => {
  // Retries an hour apart: a message still pending waits for its next attempt, unless sent again.
  const server = await start(t, { SHIPLOG_WEBHOOK_RETRY_SCHEDULE: '3600' })
  const receiver = await startReceiver(t)
  receiver.fallback = 503
  const endpoint = await createEndpoint(server, receiver, { enabled_events: ['order.created'] })
  await postTrackers(server, [{ order_number: 'S-1', tracking_number: 'TN-S1', carrier_code: 'dhl' }])
  const [first] = await receiver.waitFor(1)
  const [waiting] = await deliveries(server, endpoint.id, (l) => l[0]?.attempts === 1)
  t.match(waiting, { status: 'pending', last_status_code: 503, next_attempt_at: Number }, 'its retry is an hour away')

  receiver.fallback = 200
  const path = `/v2/webhook_endpoints/${endpoint.id}/deliveries/${waiting.id}/replay`
  const replayed = await server.request('POST', path)
  t.equal(replayed.status, 202)
  t.match(replayed.body, { object: 'webhook_delivery', id: waiting.id, status: 'pending', next_attempt_at: null })
  const [, again] = await receiver.waitFor(2)
  t.equal(
    again!.headers['webhook-id'],
    first!.headers['webhook-id'],
    'the same webhook-id, for receivers to drop repeats',
  )
  verified(t, endpoint.secret, [again!])
  const [delivered] = await deliveries(server, endpoint.id, (l) => l[0]?.status === 'succeeded')
  t.match(delivered, { attempts: 2, last_status_code: 200 }, 'sent at once, not an hour later')

  // Delivered, it can be sent again too: a receiver that lost it asks for it.
  t.equal((await server.request('POST', path)).status, 202)
  await receiver.waitFor(3)
  await deliveries(server, endpoint.id, (l) => l[0]?.status === 'succeeded' && l[0]?.attempts === 3)

  const other = await createEndpoint(server, receiver)
  for (const [wrong, status] of [
    [`/v2/webhook_endpoints/${endpoint.id}/deliveries/999999/replay`, 404],
    [`/v2/webhook_endpoints/${other.id}/deliveries/${waiting.id}/replay`, 404],
    [`/v2/webhook_endpoints/999999/deliveries/${waiting.id}/replay`, 404],
    [`/v2/webhook_endpoints/${endpoint.id}/deliveries/abc/replay`, 400],
  ] as const) {
    const refused = await server.request('POST', wrong)
    t.equal(refused.status, status, wrong)
    if (status === 400)
      t.ok('delivery_id' in (refused.body.errors ?? {}), `names delivery_id: ${JSON.stringify(refused.body)}`)
  }
  const stranger = await server.newAccount('Stranger')
  t.equal(
    (await server.request('POST', path, { key: stranger.private_key })).status,
    404,
    "another account's is not found",
  )
  t.equal(receiver.received.length, 3, 'nothing refused was sent')
})

t.test("another account's endpoints and events stay apart", async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  const endpoint = await createEndpoint(server, receiver)
  const other = await server.newAccount()
  const otherReceiver = await startReceiver(t)
  const otherEndpoint = await createEndpoint(server, otherReceiver, {}, other.private_key)
  const written = await server.request('POST', '/v1/trackers', {
    body: { trackers: [{ order_number: 'O-1', tracking_number: 'TN-O1', carrier_code: 'dhl' }] },
    key: other.private_key,
  })
  await otherReceiver.waitFor(2)
  await reactionPassed(server, 'webhooks', written.headers.get('x-shiplog-position')!)
  await queueDrained(server, 'webhooks')
  t.equal(receiver.received.length, 0, "no message of another account's order")
  for (const path of [
    `/v2/webhook_endpoints/${otherEndpoint.id}`,
    `/v2/webhook_endpoints/${otherEndpoint.id}/deliveries`,
  ]) {
    t.equal((await server.request('GET', path)).status, 404, path)
  }
  for (const [method, path] of [
    ['PATCH', ''],
    ['DELETE', ''],
    ['POST', '/rotate_secret'],
    ['POST', '/test'],
  ] as const) {
    const response = await server.request(method, `/v2/webhook_endpoints/${otherEndpoint.id}${path}`, {
      body: method === 'PATCH' ? { status: 'disabled' } : undefined,
    })
    t.equal(response.status, 404, `${method} ${path}`)
  }
  const replay = await server.request('POST', `/v2/webhook_endpoints/${otherEndpoint.id}/replay`, {
    body: { since: 0 },
  })
  t.equal(replay.status, 404)
  t.same(
    (await server.request('GET', '/v2/webhook_endpoints')).body.data.map((e: { id: number }) => e.id),
    [endpoint.id],
  )
})

t.test('a replay sends every message again from a point, with the original webhook-ids', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  // Made before the endpoint existed: only a replay can tell of it.
  await postTrackers(server, [{ order_number: 'P-0', tracking_number: 'TN-P0', carrier_code: 'dhl' }])
  const endpoint = await createEndpoint(server, receiver, { enabled_events: ['order.created'] })
  await postTrackers(server, [{ order_number: 'P-1', tracking_number: 'TN-P1', carrier_code: 'dhl' }])
  const [first] = await receiver.waitFor(1)
  t.equal(first!.json.data.object.order_number, 'P-1')

  const fromPosition = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/replay`, {
    body: { from_position: first!.json.position },
  })
  t.equal(fromPosition.status, 202)
  t.equal(fromPosition.headers.get('location'), `/v2/jobs/${fromPosition.body.id}`)
  const { job } = await waitForJob(server, fromPosition.body.id)
  t.match(job, { status: 'completed', results: [{ status: 200, body: { messages: 1 } }] })
  const [again] = (await receiver.waitFor(2)).slice(1)
  t.equal(again!.headers['webhook-id'], first!.headers['webhook-id'], 'the original webhook-id')
  t.equal(again!.body, first!.body, 'the same message')
  verified(t, endpoint.secret, [again!])

  const since = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/replay`, { body: { since: 0 } })
  await waitForJob(server, since.body.id)
  const replayed = (await receiver.waitFor(4)).slice(2).map((r) => r.json.data.object.order_number)
  t.same(replayed.sort(), ['P-0', 'P-1'], 'history from before the endpoint existed, too')
})

t.test('a job tells how it ended, with the job as GET /v2/jobs/{id} renders it', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  const endpoint = await createEndpoint(server, receiver, { enabled_events: ['job.completed', 'job.failed'] })
  const replay = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/replay`, { body: { since: 0 } })
  const { job } = await waitForJob(server, replay.body.id)
  const [message] = verified(t, endpoint.secret, await receiver.waitFor(1))
  t.equal(message.type, 'job.completed')
  t.same(message.data.object, job)
})

t.test('a receiver the operator no longer allows is refused at send: the message fails with the reason', async (t) => {
  const receiver = await startReceiver(t)
  const dataDir = tempDir(t, 'shiplog-webhooks-')
  const queue = { QUEUE_NAME: `refused-${Date.now()}` }
  const allowed = await startTestServer(t, { dataDir, env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true', ...queue } })
  const endpoint = await createEndpoint(allowed, receiver)
  await allowed.close()
  const restarted = await startTestServer(t, { dataDir, env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'false', ...queue } })
  // The endpoint's account, on the restarted service.
  const server: TestServer = {
    ...restarted,
    request: (method, path, options = {}) => restarted.request(method, path, { key: allowed.privateKey, ...options }),
  }
  await postTrackers(server, [{ order_number: 'R-1', tracking_number: 'TN-R1', carrier_code: 'dhl' }])
  const log = await deliveries(server, endpoint.id, (l) => l.length > 0 && l.every((d) => d.status !== 'pending'))
  for (const message of log) {
    t.match(message, {
      status: 'failed',
      attempts: 1,
      last_status_code: null,
      last_error: 'refused: 127.0.0.1 is a loopback address',
    })
  }
  t.equal(receiver.received.length, 0, 'nothing reached the receiver')
})

t.test(
  'after rotate_secret both secrets sign for the grace period; expires_in 0 stops the old one at once',
  async (t) => {
    const server = await start(t)
    const receiver = await startReceiver(t)
    const endpoint = await createEndpoint(server, receiver)
    const rotated = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/rotate_secret`)
    t.equal(rotated.status, 200)
    const tested = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/test`)
    t.equal(tested.status, 202)
    const [graced] = await receiver.waitFor(1)
    t.equal(String(graced!.headers['webhook-signature']).split(' ').length, 2, 'v1,<new> v1,<old>')
    verified(t, rotated.body.secret, [graced!])
    verified(t, endpoint.secret, [graced!])

    const bad = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/rotate_secret`, {
      body: { expires_in: -1 },
    })
    t.equal(bad.status, 400)
    t.match(bad.body.errors, { expires_in: /0 or more/ })
    const atOnce = await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/rotate_secret`, {
      body: { expires_in: 0 },
    })
    await server.request('POST', `/v2/webhook_endpoints/${endpoint.id}/test`)
    const [, alone] = await receiver.waitFor(2)
    t.equal(String(alone!.headers['webhook-signature']).split(' ').length, 1)
    verified(t, atOnce.body.secret, [alone!])
    t.throws(
      () => new Webhook(rotated.body.secret).verify(alone!.body, alone!.headers as Record<string, string>),
      'the secret rotated out at once no longer verifies',
    )
  },
)

t.test('an account holds a bounded number of endpoints, and one replay per endpoint runs at a time', async (t) => {
  const server = await startTestServer(t, {
    env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true', SHIPLOG_WEBHOOK_ENDPOINTS_MAX: '2' },
    roles: ['command', 'query', 'projector'], // no worker: a replay stays queued
  })
  const receiver = await startReceiver(t)
  const first = await createEndpoint(server, receiver)
  await createEndpoint(server, receiver)
  const third = await server.request('POST', '/v2/webhook_endpoints', { body: { url: receiver.url } })
  t.equal(third.status, 422)
  t.match(third.body.errors.details, 'at most 2 webhook endpoints')
  const deleted = await server.request('DELETE', `/v2/webhook_endpoints/${first.id}`)
  await readAfter(server, '/v2/webhook_endpoints', deleted.headers.get('x-shiplog-position')!)
  const replacing = await createEndpoint(server, receiver)
  t.ok(replacing.id, 'a deleted endpoint frees its place')

  const replay = (id: number) => server.request('POST', `/v2/webhook_endpoints/${id}/replay`, { body: { since: 0 } })
  const queued = await replay(replacing.id)
  t.equal(queued.status, 202)
  await readAfter(server, `/v2/jobs/${queued.body.id}`, queued.headers.get('x-shiplog-position')!)
  const second = await replay(replacing.id)
  t.equal(second.status, 409)
  t.match(second.body.errors.details, `already queued (job ${queued.body.id})`)
})

t.test(
  'signing secrets are sealed at rest: not in the log, not in kept answers; the data is the service user’s',
  async (t) => {
    const server = await start(t)
    const receiver = await startReceiver(t)
    const headers = { 'idempotency-key': 'create-endpoint-1' }
    const created = await server.request('POST', '/v2/webhook_endpoints', { body: { url: receiver.url }, headers })
    t.match(created.body.secret, /^whsec_/)
    const repeat = await server.request('POST', '/v2/webhook_endpoints', { body: { url: receiver.url }, headers })
    t.equal(repeat.body.secret, created.body.secret, 'a repeat with the Idempotency-Key shows the same secret')
    const rotated = await server.request('POST', `/v2/webhook_endpoints/${created.body.id}/rotate_secret`)

    const log = JSON.stringify((await server.runtime.eventStore.readAll({ limit: 10_000 })).map((e) => e.data))
    for (const secret of [created.body.secret, rotated.body.secret]) {
      t.notOk(log.includes(secret), 'the secret is not in the event log')
      t.notOk(log.includes(secret.slice('whsec_'.length)), 'nor its key material')
    }
    t.match(log, /sealed:v1:/)
    await server.request('POST', `/v2/webhook_endpoints/${created.body.id}/test`)
    verified(t, rotated.body.secret, await receiver.waitFor(1))

    // The embedded layout's files are for the service's user alone (on PostgreSQL there are none).
    const mode = (path: string) => statSync(path).mode & 0o777
    if (!server.runtime.config.SHIPLOG_SECRET_KEY)
      t.equal(mode(join(server.dataDir, 'secret.key')), 0o600, 'the key file')
    if (server.runtime.eventStore.kind === 'sqlite')
      t.equal(mode(join(server.dataDir, 'events.db')), 0o600, 'the event log')
    if (server.runtime.readStore.kind === 'sqlite')
      t.equal(mode(join(server.dataDir, 'read.db')), 0o600, 'the read models')
  },
)

t.test(
  'a secret sealed with another key fails the attempt with why, and is delivered once the key is right',
  async (t) => {
    const receiver = await startReceiver(t)
    const dataDir = tempDir(t, 'shiplog-webhooks-key-')
    const env = (key: string) => ({
      SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true',
      // Enough retries that the wrong key's attempts do not use up the schedule before the fix.
      SHIPLOG_WEBHOOK_RETRY_SCHEDULE: '2,2,2,2,2,2',
      SHIPLOG_SECRET_KEY: key,
      QUEUE_NAME: `sealed-${Date.now()}`,
    })
    const keyA = Buffer.alloc(32, 1).toString('base64')
    const keyB = Buffer.alloc(32, 2).toString('base64')
    const first = await startTestServer(t, { dataDir, env: env(keyA) })
    const endpoint = await createEndpoint(first, receiver)
    await first.close()
    const wrong = await startTestServer(t, { dataDir, env: env(keyB) })
    const asOwner: TestServer = {
      ...wrong,
      request: (method, path, options = {}) => wrong.request(method, path, { key: first.privateKey, ...options }),
    }
    await asOwner.request('POST', `/v2/webhook_endpoints/${endpoint.id}/test`)
    const [failed] = await deliveries(asOwner, endpoint.id, (l) => l[0]?.attempts >= 1)
    t.match(failed, { status: 'pending', last_error: /SHIPLOG_SECRET_KEY is not the key it was sealed with/ })
    t.equal(receiver.received.length, 0, 'nothing sent unsigned')
    await wrong.close()
    const right = await startTestServer(t, { dataDir, env: env(keyA) })
    const fixed: TestServer = {
      ...right,
      request: (method, path, options = {}) => right.request(method, path, { key: first.privateKey, ...options }),
    }
    verified(t, endpoint.secret, await receiver.waitFor(1))
    const [delivered] = await deliveries(fixed, endpoint.id, (l) => l[0]?.status === 'succeeded')
    t.equal(delivered.status, 'succeeded')
  },
)

t.test('many messages go out side by side, each order’s in the order they happened', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  await createEndpoint(server, receiver, { enabled_events: ['tracker.created', 'tracker.event_added'] })
  const orders = 20
  await postTrackers(
    server,
    Array.from({ length: orders }, (_, i) => ({
      order_number: `SB-${i}`,
      tracking_number: `SB${String(i).padStart(4, '0')}`,
    })),
  )
  // Each tracker's three scans in one request: one append, so one delivery job holds them with its tracker.created.
  const scans = Array.from({ length: orders }, (_, i) =>
    [1, 2, 3].map((n) => ({
      tracking_number: `SB${String(i).padStart(4, '0')}`,
      event_type_code: 'transit',
      happened_at: T0 + n * 3600,
      message: `scan ${n}`,
    })),
  ).flat()
  await server.request('POST', '/v2/trackers/events', { body: { events: scans } })
  const received = await receiver.waitFor(orders * 4)
  const byTracker = new Map<string, number[]>()
  for (const r of received) {
    const number = r.json.data.object.tracking_number as string
    byTracker.set(number, [...(byTracker.get(number) ?? []), Number(r.json.position)])
  }
  t.equal(byTracker.size, orders)
  for (const [number, positions] of byTracker)
    t.same(
      positions,
      [...positions].sort((a, b) => a - b),
      `${number}: its messages in log order`,
    )
  t.equal(new Set(received.map((r) => r.headers['webhook-id'])).size, received.length, 'each message once')
})

t.test('a slow receiver’s answers reach the delivery log within seconds, while its batch still goes on', async (t) => {
  const server = await start(t)
  const receiver = await startReceiver(t)
  receiver.delayMs = 500
  const endpoint = await createEndpoint(server, receiver, { enabled_events: ['tracker.created'] })
  // One delivery job: 120 messages, 16 at a time, half a second each, take four seconds.
  await postTrackers(
    server,
    Array.from({ length: 120 }, (_, i) => ({
      order_number: `RW-${i}`,
      tracking_number: `RW${String(i).padStart(4, '0')}`,
    })),
  )
  const log = await deliveries(server, endpoint.id, (l) => l.some((d) => d.status === 'succeeded'))
  t.ok(
    receiver.received.length < 100,
    `the first answers are in the log after ${receiver.received.length} of 120 were sent`,
  )
  t.ok(
    log.every((d) => d.status === 'pending' || d.status === 'succeeded'),
    'each is pending or succeeded',
  )
  const all = await deliveries(server, endpoint.id, (l) => l.length === 100 && l.every((d) => d.status === 'succeeded'))
  t.equal(all.length, 100, 'then every one succeeded (the log’s first page)')
  t.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 120, 'each sent once')
})

t.test('a slow receiver slows only itself: another endpoint’s messages go out meanwhile', async (t) => {
  const server = await start(t)
  const slow = await startReceiver(t)
  slow.delayMs = 3000
  await createEndpoint(server, slow, { enabled_events: ['tracker.created'] })
  // More batches for the slow receiver than a sender took at once before endpoints took turns.
  const trackers = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      order_number: `SL-${from + i}`,
      tracking_number: `SL${String(from + i).padStart(6, '0')}`,
    }))
  await postTrackers(server, trackers(0, 1000))
  await postTrackers(server, trackers(1000, 1000))
  await slow.waitFor(16)
  // Once its first batch has taken long, the endpoint is slow: batches beyond its share are put back.
  await new Promise((r) => setTimeout(r, 2500))
  await postTrackers(server, trackers(3000, 1000))
  const fast = await startReceiver(t)
  await createEndpoint(server, fast, { enabled_events: ['tracker.created'] })
  const sentAt = Date.now()
  await postTrackers(server, trackers(2000, 1))
  const [arrived] = await fast.waitFor(1, 10_000)
  t.equal(arrived!.json.data.object.tracking_number, 'SL002000')
  t.ok(Date.now() - sentAt < 10_000, 'the other endpoint’s message did not wait for the slow receiver’s backlog')
  t.ok(slow.received.length < 2000, 'while the slow receiver still had most of its messages to come')
})
