import { spawnSync } from 'node:child_process'
import { Writable } from 'node:stream'
import t from 'tap'
import { exportEvents, type ExportFilter } from '../../cli/events.ts'
import { projectionStatus } from '../../cli/projection-commands.ts'
import { ordersProjection, trackersProjection } from '../../projectors/all-projections.ts'
import { rebuildProjection } from '../../projectors/runner.ts'
import { fixedClock } from '../../shared/infra/clock.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { postTrackers, readAfter, startTestServer, type TestServer } from '../support/server.ts'

const allDocs = async (server: TestServer, collection: string) =>
  (await server.runtime.readStore.find(collection, { accountId: server.accountId, limit: 100_000 })).docs

t.test('a rebuild equals the live read model, document by document, while the service answers', async (t) => {
  const server = await startTestServer(t)
  let position: string | undefined
  for (let b = 0; b < 5; b++) {
    const post = await postTrackers(
      server,
      Array.from({ length: 200 }, (_, i) => ({
        order_number: `RB-${i % 150}`,
        tracking_number: `T-${b}-${i}`,
        email: `b${b}@x.io`,
      })),
    )
    position = post.position
  }
  await readAfter(server, '/v2/orders', position)
  await readAfter(server, '/v2/trackers', position)
  const before = {
    orders: await allDocs(server, collections.orders.name),
    trackers: await allDocs(server, collections.trackers.name),
  }
  t.equal(before.orders.length, 150)

  let answering = true
  const statuses: number[] = []
  const reads = (async () => {
    while (answering) statuses.push((await server.request('GET', '/v2/orders?limit=100')).status)
  })()
  await rebuildProjection(server.runtime, ordersProjection)
  await rebuildProjection(server.runtime, trackersProjection)
  answering = false
  await reads
  t.ok(
    statuses.length > 0 && statuses.every((s) => s === 200),
    `${statuses.length} reads during the rebuild all answered 200`,
  )
  t.same(await allDocs(server, collections.orders.name), before.orders, 'orders identical')
  t.same(await allDocs(server, collections.trackers.name), before.trackers, 'trackers identical')

  const later = await postTrackers(server, [{ order_number: 'RB-after', tracking_number: 'T' }])
  t.equal(
    (await readAfter(server, '/v2/orders?order_number=RB-after', later.position)).body.data.length,
    1,
    'the live projector goes on after the swap',
  )
  const status = await projectionStatus(server.runtime)
  t.match(
    status.find((s) => s.projection === 'orders'),
    { projection: 'orders', lag: '0' },
  )
})

t.test('export: filters combine, NDJSON one event a line', async (t) => {
  const clock = fixedClock('2026-11-01T00:00:00Z')
  const server = await startTestServer(t, { clock })
  await postTrackers(server, [{ order_number: 'EX-1', tracking_number: 'T1' }])
  clock.set('2026-11-02T00:00:00Z')
  await postTrackers(server, [
    { order_number: 'EX-2', tracking_number: 'T2' },
    { order_number: 'EX-1', tracking_number: 'T3' },
  ])
  const other = await server.newAccount()
  await server.request('POST', '/v1/trackers', {
    key: other.private_key,
    body: { trackers: [{ order_number: 'EX-1', tracking_number: 'T9' }] },
  })

  const run = async (filter: ExportFilter) => {
    let text = ''
    const out = new Writable({
      write: (chunk, _enc, done) => {
        text += chunk
        done()
      },
    })
    await exportEvents(server.runtime, filter, out)
    return text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  }
  const all = await run({})
  t.ok(all.length > 6)
  t.match(all[0], {
    stream: String,
    revision: Number,
    position: /^\d+$/,
    type: 'AccountCreated',
    data: Object,
    metadata: Object,
    recorded_at: String,
  })
  const positions = all.map((e) => BigInt(e.position))
  t.ok(
    positions.every((p, i) => i === 0 || p > positions[i - 1]!),
    'in log order',
  )

  const mine = await run({ account: server.accountId, types: ['TrackerCreated'] })
  t.same(
    mine.map((e) => e.data.tracking_number),
    ['T1', 'T2', 'T3'],
  )
  const stream = mine[0].stream
  t.same(
    (await run({ stream, types: ['TrackerCreated'], account: server.accountId })).map((e) => e.data.tracking_number),
    ['T1', 'T3'],
  )
  t.same(
    (await run({ stream: 'order-*', types: ['TrackerCreated'], since: Date.parse('2026-11-02T00:00:00Z') }))
      .map((e) => e.data.tracking_number)
      .sort(),
    ['T2', 'T3', 'T9'],
  )
  t.same(
    (await run({ types: ['TrackerCreated'], until: Date.parse('2026-11-02T00:00:00Z') })).map(
      (e) => e.data.tracking_number,
    ),
    ['T1'],
  )
  t.same(await run({ account: other.id, types: ['OrderUpdated'] }), [])

  const cli = spawnSync(
    process.execPath,
    ['bin/shiplog.js', 'events', 'export', '--type', 'TrackerCreated', '--account', String(other.id)],
    {
      env: { ...process.env, ...server.stores, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    },
  )
  t.equal(cli.status, 0, cli.stderr)
  t.same(
    cli.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).data.tracking_number),
    ['T9'],
    'the CLI streams the same',
  )
})

t.test('history and as_of: the order as it was', async (t) => {
  const clock = fixedClock('2026-11-10T09:00:00Z')
  // No worker role: the clock moves on by days, and the delay sweep would look at the parcels meanwhile,
  // writing its own events into the history this test reads.
  const server = await startTestServer(t, { clock, roles: ['command', 'query', 'projector'] })
  const t1 = Date.parse('2026-11-10T09:00:00Z') / 1000
  const created = await postTrackers(server, [{ order_number: 'H-1', tracking_number: 'T1', email: 'first@x.io' }])
  clock.set('2026-11-11T09:00:00Z')
  await postTrackers(server, [{ order_number: 'H-1', tracking_number: 'T1', email: 'second@x.io' }])
  clock.set('2026-11-12T09:00:00Z')
  const third = await postTrackers(server, [{ order_number: 'H-1', tracking_number: 'T2', email: 'third@x.io' }])
  const id = created.body.trackers[0].order_id
  const at = (asOf: string) =>
    readAfter(server, `/v2/orders/${id}?as_of=${asOf}&expand[]=fulfillments.trackers.carrier`, third.position)

  t.equal((await at(String(t1 - 1))).status, 404, 'before creation')
  t.equal((await at(String(t1))).body.email, 'first@x.io')
  const between = await at('2026-11-11T12:00:00Z')
  t.equal(between.body.email, 'second@x.io', 'between two updates: the earlier state')
  t.equal(between.body.fulfillments.data.length, 1)
  t.equal(between.body.fulfillments.data[0].object, 'fulfillment', 'rendered and expanded like the live one')
  const now = await at('2026-11-30T00:00:00Z')
  t.same(
    now.body,
    (await readAfter(server, `/v2/orders/${id}?expand[]=fulfillments.trackers.carrier`, third.position)).body,
    'now equals the live order',
  )
  t.equal((await at('last tuesday')).status, 400)

  const history = await readAfter(server, `/v2/orders/${id}/history?limit=3`, third.position)
  t.match(history.body, { object: 'list', has_more: true })
  t.same(
    history.body.data.map((e: { type: string }) => e.type),
    ['TrackerCreated', 'FulfillmentCreated', 'OrderUpdated'],
  )
  t.match(history.body.data[0], {
    object: 'history_event',
    id: Number,
    recorded_at: Date.parse('2026-11-12T09:00:00Z') / 1000,
    data: { tracking_number: 'T2' },
  })
  const older = await readAfter(
    server,
    `/v2/orders/${id}/history?limit=3&ending_before=${history.body.data[2].id}`,
    third.position,
  )
  const rest = await readAfter(
    server,
    `/v2/orders/${id}/history?limit=100&ending_before=${history.body.data[2].id}`,
    third.position,
  )
  t.same(older.body.data, rest.body.data.slice(0, 3))
  t.equal(rest.body.data.at(-1).type, 'OrderCreated')
  t.equal(rest.body.has_more, false)
  const other = await server.newAccount()
  t.equal((await server.request('GET', `/v2/orders/${id}/history`, { key: other.private_key })).status, 404)
})
