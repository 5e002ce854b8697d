import t from 'tap'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import { call, createAccountWithCli, freePort, serviceEnvironment, spawnServer } from '../support/process.ts'
import { LAPOSTE_KEY, startCarrierServer } from '../support/carrier-api.ts'
import { metric, queueDrained, until } from '../support/progress.ts'
import { startMailbox } from '../support/smtp.ts'
import { startReceiver } from '../support/receiver.ts'
import { redisOn } from '../support/redis.ts'

/*
 * Redis restarted (killed, then started again on the same port) while jobs
 * are queued and running: every job completes once, and GET /v2/jobs/{id}
 * answers throughout. The test runs a Redis server of its own, so other tests
 * keep theirs.
 */

t.test('Redis restarted while jobs are queued and running: each completes once; jobs answer throughout', async (t) => {
  const port = await freePort()
  const redis = await redisOn(t, port)
  const env = await serviceEnvironment(t, { REDIS_URL: `redis://127.0.0.1:${port}` })
  const account = createAccountWithCli(env)
  const service = await spawnServer(env)
  t.teardown(() => service.kill('SIGKILL'))
  const jobs: number[] = []
  for (let i = 0; i < 3; i++) {
    const rows = Array.from({ length: 5000 }, (_, r) => point(`R${i}-${r}`))
    const upload = await fetch(`${service.url}/v2/pickup_points/import`, {
      method: 'POST',
      headers: { authorization: account.private_key },
      body: csvForm(pickupPointCsv(rows)),
    })
    jobs.push(((await upload.json()) as { id: number }).id)
    const batch = await call(service.url, account.private_key, '/v2/orders/batch_create', {
      method: 'POST',
      body: JSON.stringify({ orders: Array.from({ length: 20 }, (_, o) => ({ merchant_id: `M${i}-${o}` })) }),
    })
    jobs.push(((await batch.json()) as { job_id: number }).job_id)
  }
  const statuses: number[] = []
  const watching = (async () => {
    for (let i = 0; i < 30; i++) {
      for (const id of jobs) statuses.push((await call(service.url, account.private_key, `/v2/jobs/${id}`)).status)
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  // Restarted while a job runs, the others queued behind it.
  await until(
    async () =>
      (
        await Promise.all(
          jobs.map(
            async (id) =>
              (await (await call(service.url, account.private_key, `/v2/jobs/${id}`)).json()) as { status: string },
          ),
        )
      ).map((j) => j.status),
    (statuses) => statuses.includes('processing'),
  )
  await redis.restart(1500)
  await watching
  t.same([...new Set(statuses)], [200], 'GET /v2/jobs/{id} answered 200 throughout the outage')

  const deadline = Date.now() + 90_000
  const finished = new Map<number, { status: string; results?: { status: number }[] }>()
  while (finished.size < jobs.length && Date.now() < deadline) {
    for (const id of jobs) {
      const job = (await (await call(service.url, account.private_key, `/v2/jobs/${id}`)).json()) as {
        status: string
        results?: { status: number }[]
      }
      if (job.status === 'completed' || job.status === 'failed') finished.set(id, job)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  for (const [index, id] of jobs.entries()) {
    const job = finished.get(id)
    t.equal(job?.status, 'completed', `job ${index} completed`)
    const expected = index % 2 === 0 ? 5000 : 20
    t.equal(job?.results?.length, expected, `job ${index}: one result per item`)
    t.ok(
      job?.results?.every((r) => r.status === 201),
      `job ${index}: every item created once (a second run would update)`,
    )
  }
})

t.test('Redis restarted empty while e-mails wait and trackers are polled: nothing is lost', async (t) => {
  const port = await freePort()
  const redis = await redisOn(t, port)
  const mailbox = await startMailbox(t)
  mailbox.refuseAll = true // the relay answers 451: every e-mail waits in Redis for its next attempt
  const carrier = await startCarrierServer(t)
  carrier.laposteCodes.set('6A-R', ['PC1'])
  const env = await serviceEnvironment(t, {
    REDIS_URL: `redis://127.0.0.1:${port}`,
    SMTP_URL: mailbox.url,
    SHIPLOG_MAIL_RETRY_DELAY_MS: '1000',
    SHIPLOG_LAPOSTE_API_URL: carrier.url,
    SHIPLOG_LAPOSTE_API_KEY: LAPOSTE_KEY,
    SHIPLOG_POLL_INTERVAL: '1',
  })
  const account = createAccountWithCli(env)
  const service = await spawnServer(env)
  t.teardown(() => service.kill('SIGKILL'))
  // The polled tracker's customer has no e-mail: its events would add e-mails of their own.
  const polled = { order_number: 'R-0', tracking_number: '6A-R', carrier_code: 'colissimo' }
  const mailed = Array.from({ length: 10 }, (_, i) => ({
    order_number: `R-${i + 1}`,
    tracking_number: `TN-R${i + 1}`,
    carrier_code: 'dhl',
    email: `r${i + 1}@example.com`,
  }))
  const trackers = [polled, ...mailed]
  const posted = await call(service.url, account.private_key, '/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers }),
  })
  t.equal(posted.status, 201)
  const polledEvents = async () => {
    const list = (await (
      await call(service.url, account.private_key, '/v2/trackers?tracking_number=6A-R&expand[]=events')
    ).json()) as { data: { events: { data: unknown[] } }[] }
    return list.data[0]?.events.data.length ?? 0
  }
  await until(polledEvents, (n) => n === 1)
  await until(
    () => metric(service, 'shiplog_jobs', { state: 'delayed' }),
    (n) => n >= 10,
  )

  await redis.restart(1000) // the waiting e-mails, the poll schedule and the polls queued are gone with it
  mailbox.refuseAll = false
  await mailbox.waitFor(10, 60_000)
  await queueDrained(service, 'emails')
  const mails = mailbox.messages
  t.same(
    mails.map((m) => (m.to && 'text' in m.to ? m.to.text : '')).sort(),
    mailed.map((tr) => tr.email).sort(),
    'every order_placed e-mail was sent after Redis came back empty, once each',
  )
  carrier.laposteCodes.set('6A-R', ['DI1', 'PC1'])
  t.equal(await until(polledEvents, (n) => n === 2), 2, 'carrier polling goes on after Redis came back empty')
})

t.test('Redis away while webhook messages are made, back empty: each sent once, as soon as it is back', async (t) => {
  const port = await freePort()
  const redis = await redisOn(t, port)
  const receiver = await startReceiver(t)
  const env = await serviceEnvironment(t, {
    REDIS_URL: `redis://127.0.0.1:${port}`,
    SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true',
  })
  const account = createAccountWithCli(env)
  const service = await spawnServer(env)
  t.teardown(() => service.kill('SIGKILL'))
  const request = (path: string, init?: RequestInit) => call(service.url, account.private_key, path, init)
  const endpoint = (await (
    await request('/v2/webhook_endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, enabled_events: ['order.created'] }),
    })
  ).json()) as { id: number }

  await redis.kill()
  const orders = ['W-1', 'W-2', 'W-3', 'W-4', 'W-5']
  const posted = await request('/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers: orders.map((n) => ({ order_number: n, tracking_number: `TN-${n}` })) }),
  })
  t.equal(posted.status, 201, 'orders are taken while Redis is away')
  await until(
    async () =>
      (await (await request(`/v2/webhook_endpoints/${endpoint.id}/deliveries`)).json()) as { data: unknown[] },
    (log) => log.data.length === orders.length,
  )
  t.equal(receiver.received.length, 0, 'nothing is sent while Redis is away')

  // Back well within a sweep's round of the messages being made: their batch is made again at once.
  await redis.start()
  const received = await receiver.waitFor(orders.length, 15_000)
  t.same(received.map((r) => r.json.data.object.order_number).sort(), orders, 'every message arrived')
  await queueDrained(service, 'webhooks')
  t.equal(receiver.received.length, orders.length, 'each once')
})
