import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import SwaggerParser from '@apidevtools/swagger-parser'
import { errorCodes } from '../../shared/domain/errors.ts'
import { tempDir } from '../support/temp.ts'
import { metric } from '../support/progress.ts'
import { postTrackers, readAfter, startTestServer, type TestServer } from '../support/server.ts'

t.test('expand[] takes every prefix of a listed path, as clients send them', async (t) => {
  const server = await startTestServer(t)
  await postTrackers(server, [{ order_number: 'X-1', tracking_number: 'T', carrier_code: 'ups' }])
  for (const path of ['fulfillments', 'fulfillments.trackers', 'fulfillments.trackers.events', 'notifications']) {
    const page = await server.request('GET', `/v2/orders?expand[]=${path}`)
    t.equal(page.status, 200, path)
  }
  const page = await server.request('GET', '/v2/orders?expand%5B%5D=fulfillments.trackers')
  t.match(page.body.data[0].fulfillments.data[0].trackers.data[0], { object: 'tracker', tracking_number: 'T' })
  t.equal((await server.request('GET', '/v2/orders?expand[]=fulfillments.nope')).status, 400)
})

t.test('as_of=<created_at> shows the resource: a second is read to its end', async (t) => {
  const server = await startTestServer(t)
  const created = await postTrackers(server, [{ order_number: 'AS-1', tracking_number: 'T' }])
  const order = (await readAfter(server, '/v2/orders?order_number=AS-1', created.position)).body.data[0]
  const then = await server.request('GET', `/v2/orders/${order.id}?as_of=${order.created_at}`)
  t.equal(then.status, 200)
  t.equal(then.body.order_number, 'AS-1')
  t.equal((await server.request('GET', `/v2/orders/${order.id}?as_of=${order.created_at - 1}`)).status, 404)
})

t.test('/metrics: events appended by type, projection lag, jobs by state, request durations by route', async (t) => {
  const server = await startTestServer(t)
  await postTrackers(server, [
    { order_number: 'M-1', tracking_number: 'A' },
    { order_number: 'M-1', tracking_number: 'B' },
  ])
  const metrics = await server.request('GET', '/metrics', { key: '' })
  t.equal(metrics.status, 200)
  const text = metrics.body as string
  t.match(text, /shiplog_events_appended_total\{type="TrackerCreated"\} 2\n/)
  t.match(text, /shiplog_events_appended_total\{type="OrderCreated"\} 1\n/)
  t.match(text, /shiplog_projection_lag_events\{projection="orders"\} \d+/)
  t.match(text, /shiplog_jobs\{queue="[^"]+",state="waiting"\} 0/)
  t.match(text, /shiplog_http_request_duration_seconds_count\{method="POST",route="\/v1\/trackers",status="201"\} 1/)
  // promtool check metrics: only a counter's name ends in _total, and a counter's always does.
  const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name!, type: type! }))
  t.ok(types.length > 20)
  t.same(
    types.filter(({ name, type }) => (type === 'counter') !== name.endsWith('_total')),
    [],
    'no gauge named like a counter, no counter without _total',
  )
  t.match(text, /^nodejs_active_handles\{type="\w+"\} \d+$/m, 'active handles are still counted, by type')
})

t.test('/metrics: a write’s time, stored then visible, and writes answered before they were readable', async (t) => {
  const writes = (server: Pick<TestServer, 'url'>, stage: string) =>
    metric(server, 'shiplog_write_seconds_count', { stage })
  const waited = (server: Pick<TestServer, 'url'>) => metric(server, 'shiplog_write_seconds_sum', { stage: 'visible' })
  const timeouts = (server: Pick<TestServer, 'url'>) => metric(server, 'shiplog_write_visibility_timeouts_total')

  const server = await startTestServer(t)
  const [stored, visible] = [await writes(server, 'stored'), await writes(server, 'visible')]
  await postTrackers(server, [{ order_number: 'W-1', tracking_number: 'W1' }])
  t.equal(await writes(server, 'stored'), stored + 1, 'the write is timed until stored')
  t.equal(await writes(server, 'visible'), visible + 1, 'and then until visible')
  t.ok((await waited(server)) > 0)
  t.equal(await timeouts(server), 0, 'its read models included it in time')
  await server.request('GET', '/v2/orders?order_number=W-1')
  t.equal(await writes(server, 'stored'), stored + 1, 'a read is not a write')

  // No projector in this process: the write is stored, waits its 50 ms for the read models, and answers.
  const alone = await startTestServer(t, {
    roles: ['command', 'query'],
    env: { SHIPLOG_WRITE_VISIBILITY_WAIT_MS: '50' },
  })
  const [late, before] = [await timeouts(alone), await waited(alone)]
  t.equal((await postTrackers(alone, [{ order_number: 'W-2', tracking_number: 'W2' }])).status, 201)
  t.equal(await timeouts(alone), late + 1, 'answered before it was readable')
  t.ok((await waited(alone)) - before >= 0.05, 'after waiting its whole wait')

  // Answering once stored, a write has no visible stage.
  const appended = await startTestServer(t, { env: { SHIPLOG_WRITE_VISIBILITY: 'appended' } })
  const [first, none] = [await writes(appended, 'stored'), await writes(appended, 'visible')]
  await postTrackers(appended, [{ order_number: 'W-3', tracking_number: 'W3' }])
  t.equal(await writes(appended, 'stored'), first + 1)
  t.equal(await writes(appended, 'visible'), none)
})

t.test('/metrics asks for SHIPLOG_METRICS_TOKEN when one is set', async (t) => {
  const token = 'a-long-metrics-token-5678'
  const server = await startTestServer(t, { env: { SHIPLOG_METRICS_TOKEN: token } })
  const refused = await fetch(`${server.url}/metrics`)
  t.equal(refused.status, 401)
  t.match(refused.headers.get('www-authenticate'), /^Bearer/)
  t.equal(
    (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.privateKey}` } })).status,
    401,
  )
  const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(scraped.status, 200)
  t.match(await scraped.text(), /shiplog_events_appended_total/)
})

t.test('the queue dashboard: off without SHIPLOG_ADMIN_TOKEN, and only with that token', async (t) => {
  const off = await startTestServer(t)
  t.equal((await off.request('GET', '/admin/queues', { key: '' })).status, 404)
  const token = 'a-long-operator-token-1234'
  const server = await startTestServer(t, { env: { SHIPLOG_ADMIN_TOKEN: token } })
  t.equal((await server.request('GET', '/admin/queues', { key: '' })).status, 401)
  t.equal((await server.request('GET', '/admin/queues')).status, 401, 'a merchant key does not open it')
  const page = await server.request('GET', '/admin/queues', { key: token })
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /text\/html/)
  const queues = await server.request('GET', '/admin/queues/api/queues', { key: token })
  t.equal(queues.status, 200)
  t.match(queues.body, { queues: [{ name: String }] })
})

t.test(
  'the queue dashboard opens in a browser: HTTP Basic with the token, every asset, nothing from outside',
  async (t) => {
    const token = 'a-long-operator-token-1234'
    const server = await startTestServer(t, { env: { SHIPLOG_ADMIN_TOKEN: token } })
    const refused = await fetch(`${server.url}/admin/queues`)
    t.equal(refused.status, 401)
    t.match(refused.headers.get('www-authenticate'), /^Basic realm="shiplog queues"/, 'the browser asks for the token')
    const basic = (user: string, password: string) => ({
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    })
    t.equal((await fetch(`${server.url}/admin/queues`, { headers: basic('admin', 'wrong-token-000000') })).status, 401)
    const page = await fetch(`${server.url}/admin/queues`, { headers: basic('admin', token) })
    t.equal(page.status, 200)
    const html = await page.text()
    t.notMatch(html, /https?:\/\//, 'no asset from another host')
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((m) => m[1]!)
    t.ok(assets.length >= 2, 'scripts and styles')
    for (const asset of assets) {
      const served = await fetch(`${server.url}/admin/queues/${asset}`, { headers: basic('', token) })
      t.equal(served.status, 200, asset)
      await served.arrayBuffer()
    }
  },
)

t.test('every operation is named, tagged and answers the statuses the reference says', async (t) => {
  const server = await startTestServer(t)
  const doc = (await server.request('GET', '/openapi.json', { key: '' })).body
  t.match(doc.servers, [{ url: '/' }])
  const tags = new Set(doc.tags.map((tag: { name: string }) => tag.name))
  const ids: string[] = []
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      const name = `${method.toUpperCase()} ${path}`
      ids.push(operation.operationId)
      t.ok(operation.operationId, `${name} has an operationId`)
      t.ok(operation.summary, `${name} has a summary`)
      t.ok(operation.tags?.length === 1 && tags.has(operation.tags[0]), `${name} has one known tag`)
    }
  }
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  // A client generated from the document types every success answer: no operation's body is unknown or absent.
  const dir = tempDir(t, 'shiplog-client-')
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc))
  const generated = spawnSync(
    'node_modules/.bin/openapi-typescript',
    [join(dir, 'openapi.json'), '-o', join(dir, 'api.d.ts')],
    {
      encoding: 'utf8',
    },
  )
  t.equal(generated.status, 0, `openapi-typescript generates a client's types ${generated.stderr}`)
  writeFileSync(join(dir, 'typed.ts'), typedAnswersCheck)
  // Without the test runner's hooks (NODE_OPTIONS), which the compiler's launcher does not load under.
  const tsc = ['--ignoreConfig', '--noEmit', '--strict', '--types', '', join(dir, 'typed.ts')]
  const compiled = spawnSync('sh', ['-c', 'NODE_OPTIONS= exec node_modules/.bin/tsc "$@"', 'tsc', ...tsc], {
    encoding: 'utf8',
  })
  t.equal(compiled.status, 0, `every success answer has a type: ${compiled.stdout}${compiled.stderr}`)
  const successes = (path: string, method: string) =>
    Object.keys(doc.paths[path][method].responses).filter((s) => s.startsWith('2'))
  t.same(successes('/v2/webhook_endpoints', 'post'), ['201'], 'create answers 201')
  t.same(successes('/v2/webhook_endpoints/{id}/test', 'post'), ['202'])
  t.same(successes('/v2/webhook_endpoints/{id}/replay', 'post'), ['202'])
  t.same(successes('/v2/orders/batch_create', 'post'), ['202'])
  // The statuses it says are the ones it answers.
  const receiverUrl = 'https://erp.example.com/hooks'
  const created = await server.request('POST', '/v2/webhook_endpoints', { body: { url: receiverUrl } })
  t.equal(created.status, 201)
  t.equal((await server.request('POST', `/v2/webhook_endpoints/${created.body.id}/test`)).status, 202)

  t.equal(doc.info.version, JSON.parse(readFileSync('package.json', 'utf8')).version, "the service's version")
  await t.resolves(
    SwaggerParser.validate(structuredClone(doc)),
    'a valid OpenAPI 3.1 document (@apidevtools/swagger-parser)',
  )
  const file = join(tempDir(t, 'shiplog-openapi-'), 'openapi.json')
  writeFileSync(file, JSON.stringify(doc))
  const lint = spawnSync('node_modules/.bin/redocly', ['lint', '--format=json', file], {
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })
  const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{'))) as {
    totals: { errors: number; warnings: number }
    problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[]
  }
  t.equal(report.totals.errors, 0, 'Redocly lint, its recommended rules: no error')
  // The lookup form's only success is a redirect (303) to the order's page: it has no 2xx to list.
  const lookupRedirects = (p: { ruleId: string; location?: { pointer?: string }[] }) =>
    p.ruleId === 'operation-2xx-response' && p.location?.[0]?.pointer?.includes('~1track~1lookup')
  t.same(
    report.problems
      .filter((p) => p.ruleId !== 'operation-4xx-response' && !lookupRedirects(p))
      .map((p) => `${p.ruleId}: ${p.message}`),
    [],
    'no warning but for the health routes, which answer no 4xx, and the lookup, which redirects',
  )
  t.same(doc.paths['/v2/orders'].get.responses['400'], { $ref: '#/components/responses/Error400V2' })
  t.same(doc.components.headers['X-Shiplog-Error'].schema.enum, Object.keys(errorCodes), 'every error code')
  const page = readFileSync('docs/errors.md', 'utf8')
  for (const code of Object.keys(errorCodes)) t.match(page, `| \`${code}\` |`, `docs/errors.md lists ${code}`)
})

t.test('the API reference: /docs from the OpenAPI document, which names every status, header and body', async (t) => {
  const server = await startTestServer(t)
  const root = await server.request('GET', '/', { key: '' })
  t.same(root.body, { service: 'shiplog', api_reference: '/docs', openapi: '/openapi.json' })
  const page = await fetch(`${server.url}/docs`, { redirect: 'follow' })
  t.equal(page.status, 200)
  const html = await page.text()
  t.match(html, /swagger-ui/i)
  t.match(html, `<title>shiplog ${JSON.parse(readFileSync('package.json', 'utf8')).version} API reference</title>`)
  // Offline: every script, style and icon from the service itself, and no call to the online validator.
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
  t.ok(assets.length >= 4, 'scripts, styles and icons')
  t.same(
    assets.filter((a) => !a.startsWith('/docs/')),
    [],
    'no asset from another host',
  )
  for (const asset of assets) t.equal((await fetch(`${server.url}${asset}`)).status, 200, asset)
  const initializer = await (await fetch(`${server.url}/docs/static/swagger-initializer.js`)).text()
  t.match(initializer, 'validatorUrl: null', 'no request to validator.swagger.io')
  const doc = (await server.request('GET', '/openapi.json', { key: '' })).body
  const upsert = doc.paths['/v1/trackers'].post
  t.match(upsert.responses['201'].content['application/json'].schema, { properties: { trackers: { type: 'array' } } })
  t.match(upsert.responses['201'].headers, { 'X-Shiplog-Position': {} })
  for (const status of ['400', '401', '403', '413', '415', '429'])
    t.ok(upsert.responses[status], `POST /v1/trackers ${status}`)
  t.same(upsert.responses['400'], { $ref: '#/components/responses/Error400V1' })
  t.match(doc.components.responses.Error400V1.content['application/json'].schema, {
    $ref: '#/components/schemas/ErrorV1',
  })
  t.ok(upsert.parameters.some((p: { name: string }) => p.name === 'Idempotency-Key'))
  t.ok(upsert.requestBody.content['application/json'].example)
  const orders = doc.paths['/v2/orders'].get
  t.ok(orders.parameters.some((p: { name: string; in: string }) => p.name === 'expand[]' && p.in === 'query'))
  t.ok(
    orders.parameters.some((p: { name: string; in: string }) => p.name === 'X-Shiplog-Position' && p.in === 'header'),
  )
  t.same(orders.responses['404'], undefined, 'no 404 on a listing')
  t.same(doc.paths['/v2/orders/{id}'].get.responses['404'], { $ref: '#/components/responses/Error404V2' })
  t.same(orders.responses['409'], undefined, 'no 409 on a read')
  t.same(doc.paths['/v1/delivery_date_estimation'].post.responses['403'], undefined, 'the public key may estimate')
  t.match(doc.paths['/v2/orders'].get.responses['200'].content['application/json'].schema, {
    properties: { data: { items: { $ref: '#/components/schemas/Order' } } },
  })
  const upload = doc.paths['/v2/pickup_points/import'].post
  t.match(upload.requestBody.content['multipart/form-data'].schema.properties.file, { format: 'binary' })
  t.ok(upload.responses['202'])
  t.same(doc.paths['/healthz'].get.security, [], 'no key on health routes')
  const documented = Object.entries<Record<string, { responses: Record<string, unknown> }>>(doc.paths).flatMap(
    ([path, methods]) =>
      Object.entries(methods).map(([m, op]) => ({ route: `${m} ${path}`, statuses: Object.keys(op.responses) })),
  )
  t.same(
    documented.filter((d) => !d.statuses.some((s) => /^2|^303$/.test(s))).map((d) => d.route),
    [],
    'every route documents its success answer (a 303 to where the answer is, for the lookup form)',
  )
})

/** Compiles only if every operation's success answers carry a body of a known type (JSON, CSV or HTML). */
const typedAnswersCheck = `
import type { operations } from './api'
type Body<R> = R extends { content: infer C } ? C[keyof C] : never
type Successes<O> = O extends { responses: infer R } ? { [S in keyof R & (200 | 201 | 202)]: Body<R[S]> } : never
type Untyped<T> = [T] extends [never] ? true : unknown extends T ? true : false
type UntypedStatuses<O> = { [S in keyof Successes<O>]: Untyped<Successes<O>[S]> extends true ? S : never }[keyof Successes<O>]
type UntypedOperations = { [K in keyof operations]: [UntypedStatuses<operations[K]>] extends [never] ? never : K }[keyof operations]
export const everyAnswerTyped: [UntypedOperations] extends [never] ? 'typed' : { untyped: UntypedOperations } = 'typed'
`
