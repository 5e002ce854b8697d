import { spawnSync } from 'node:child_process'
import t from 'tap'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import { call, createAccountWithCli, serviceEnvironment, shiplogCli, spawnServer } from '../support/process.ts'

t.test('the service built as JavaScript (npm run build) runs every role without TypeScript', async (t) => {
  // Without the loaders the test runner gives its child processes, as `npm start` builds.
  // Only when stale: the test command has built it, and other tests' servers run from it.
  const build = spawnSync('sh', ['-c', `env -u NODE_OPTIONS "${process.execPath}" bin/build.mjs --if-stale`], {
    encoding: 'utf8',
  })
  t.equal(build.status, 0, build.stderr)
  const env = await serviceEnvironment(t, { SHIPLOG_RUN_COMPILED: '1' })
  const account = createAccountWithCli(env)
  const server = await spawnServer(env)
  t.teardown(() => server.kill('SIGKILL'))
  const key = account.private_key
  const body = JSON.stringify({ trackers: [{ order_number: 'JS-1', tracking_number: 'T' }] })
  t.equal((await call(server.url, key, '/v1/trackers', { method: 'POST', body })).status, 201)
  const orders = (await (await call(server.url, key, '/v2/orders?order_number=JS-1')).json()) as { data: unknown[] }
  t.equal(orders.data.length, 1, 'the projector thread runs')
  const upload = await fetch(`${server.url}/v2/pickup_points/import`, {
    method: 'POST',
    headers: { authorization: key },
    body: csvForm(pickupPointCsv([point('JS-P')])),
  })
  const { id } = (await upload.json()) as { id: number }
  let status = ''
  for (let i = 0; i < 100 && status !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 100))
    status = ((await (await call(server.url, key, `/v2/jobs/${id}`)).json()) as { status: string }).status
  }
  t.equal(status, 'completed', 'the job worker runs')
  // A rebuild's second thread starts from dist/ as well.
  const rebuild = shiplogCli(['projections', 'rebuild', 'orders'], env)
  t.equal(rebuild.status, 0, rebuild.stderr)
  t.match(rebuild.stderr, /orders: rebuilt from \d+ events/)
  const rebuilt = (await (await call(server.url, key, '/v2/orders?order_number=JS-1')).json()) as { data: unknown[] }
  t.equal(rebuilt.data.length, 1, 'the rebuilt orders serve')
})
