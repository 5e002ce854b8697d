import t, { type Test } from 'tap'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import { call, createAccountWithCli, serviceEnvironment, spawnServer } from '../support/process.ts'
import { until } from '../support/progress.ts'

/** The service as a child process on its own stores, killed and restarted as an unlucky operator would see it. */
async function serviceOnDisk(t: Test) {
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env)
  let current = await spawnServer(env)
  t.teardown(() => current.kill('SIGKILL'))
  const request = async (method: string, path: string, body?: FormData) => {
    const response = await fetch(`${current.url}${path}`, {
      method,
      headers: { authorization: account.private_key },
      body,
    })
    return { status: response.status, body: (await response.json()) as any }
  }
  return {
    request,
    async crashAndRestart() {
      await current.kill('SIGKILL')
      current = await spawnServer(env)
    },
  }
}

t.test('an import killed part-way resumes after the restart and applies each row once', async (t) => {
  const service = await serviceOnDisk(t)
  const rows = Array.from({ length: 50_000 }, (_, i) => point(`K-${i}`))
  const upload = await service.request('POST', '/v2/pickup_points/import', csvForm(pickupPointCsv(rows)))
  t.equal(upload.status, 202)
  const job = () => service.request('GET', `/v2/jobs/${upload.body.id}`)
  // Part-way: some rows applied, not all.
  await until(
    async () => (await service.request('GET', '/v2/pickup_points?limit=1')).body.data?.length ?? 0,
    (applied) => applied > 0,
  )
  t.not((await job()).body.status, 'completed', 'killed before the end')
  await service.crashAndRestart()
  // Within a minute: the restarted worker takes the job back, not waiting out a long lock's expiry.
  const done = await until(job, (j) => j.body.status === 'completed' || j.body.status === 'failed', 60_000)
  t.equal(done.body.status, 'completed', "the restarted worker took the job back, not waiting out a long lock's expiry")
  const results = done.body.results as { status: number; body: { id: number; line: number } }[]
  t.equal(results.length, rows.length, 'one result per row')
  t.same(
    results.filter((r) => r.status !== 201).map((r) => r.body.line),
    [],
    'every row created once: none was applied twice (a second application would be an update)',
  )
  t.equal(new Set(results.map((r) => r.body.id)).size, rows.length)
})

t.test('a batch order job killed part-way completes after the restart, each order applied once', async (t) => {
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env)
  let service = await spawnServer(env)
  t.teardown(() => service.kill('SIGKILL'))
  const orders = Array.from({ length: 100 }, (_, i) => ({
    merchant_id: `B-${i}`,
    line_items: [{ merchant_id: 'L1', quantity: 1 }],
    fulfillments: [{ merchant_id: 'F', trackers: [{ tracking_number: `BT-${i}`, line_items: ['L1'] }] }],
  }))
  const accepted = await call(service.url, account.private_key, '/v2/orders/batch_create', {
    method: 'POST',
    body: JSON.stringify({ orders }),
  })
  const { job_id } = (await accepted.json()) as { job_id: number }
  const job = async () =>
    (await (await call(service.url, account.private_key, `/v2/jobs/${job_id}`)).json()) as {
      status: string
      results?: { status: number }[]
    }
  await until(job, (j) => j.status !== 'queued')
  await service.kill('SIGKILL')
  service = await spawnServer(env)
  const done = await until(job, (j) => j.status === 'completed' || j.status === 'failed', 60_000)
  t.equal(done.status, 'completed')
  t.equal(done.results?.length, 100, 'one result per order')
  t.same(
    [...new Set(done.results?.map((r) => r.status))],
    [201],
    'every order created once: none applied twice (a second application would answer 200)',
  )
})
