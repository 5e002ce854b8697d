import t from 'tap'
import { postgresSkip, postgresUrl, testSchema } from '../support/postgres.ts'
import { until } from '../support/progress.ts'
import { postTrackers, readAfter, startTestServer } from '../support/server.ts'
import { tcpProxy } from '../support/tcp-proxy.ts'

/*
 * PostgreSQL away and back, through a relay the test cuts: while it is away
 * a write is a 503 with Retry-After naming the database (never a 500, nothing
 * half-written), the process stays up; once it is back writes are taken
 * again and the projector goes on from its checkpoint.
 */
t.test(
  'PostgreSQL away: writes are 503 with Retry-After, then taken again once it is back',
  { skip: await postgresSkip() },
  async (t) => {
    const upstream = new URL(postgresUrl)
    const proxy = await tcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) })
    t.teardown(() => proxy.stop())
    const url = new URL(postgresUrl)
    url.host = `127.0.0.1:${proxy.port}`
    url.searchParams.set('schema', testSchema())
    const server = await startTestServer(t, {
      env: { DATABASE_URL: url.toString(), SHIPLOG_SECRET_KEY: '1'.repeat(64), CONSISTENCY_WAIT_MS: '15000' },
    })
    const tracker = (n: number) => ({ order_number: `OUT-${n}`, tracking_number: `OUT${n}` })
    t.equal((await postTrackers(server, [tracker(1)])).status, 201)

    await proxy.stop()
    const away = await postTrackers(server, [tracker(2)])
    t.equal(away.status, 503, 'a write while the database is away')
    t.equal(away.headers.get('x-shiplog-error'), 'SHIPLOG_ERR_UNAVAILABLE')
    t.equal(away.headers.get('retry-after'), '5')
    t.match(away.body, { error: /database is unavailable/ })
    t.equal((await server.request('GET', '/healthz', { key: null })).status, 200, 'the process is up')
    t.equal((await server.request('GET', '/readyz', { key: null })).status, 503, 'and says it is not ready')

    await proxy.start()
    const back = await until(
      () => postTrackers(server, [tracker(3)]),
      (answer) => answer.status === 201,
    )
    const orders = await readAfter(server, '/v2/orders?limit=10', back.position)
    t.same(
      orders.body.data.map((o: { order_number: string }) => o.order_number).sort(),
      ['OUT-1', 'OUT-3'],
      'the write taken before and the one after; the refused one nowhere',
    )
  },
)
