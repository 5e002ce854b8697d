import { randomBytes } from 'node:crypto'
import t from 'tap'
import { loadConfig } from '../../shared/infra/config.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { openRuntime } from '../../shared/infra/runtime.ts'
import { BATCH, trackingNumberOf } from '../support/faults.ts'
import { postgresSkip, postgresUrl, testSchema } from '../support/postgres.ts'
import { call, createAccountWithCli, freePort, serviceEnvironment, spawnServer } from '../support/process.ts'
import { until } from '../support/progress.ts'

/*
 * The distributed layout on one PostgreSQL and one Redis: `command`,
 * `projector`, `worker` and `query` each a process of its own. While batches
 * are ingested the projector is killed with SIGKILL in the middle of its
 * work and started again; afterwards every acknowledged tracker is in the
 * read models exactly once, and the query process answers for them.
 */
t.test(
  'four roles as processes on PostgreSQL: the projector killed mid-batch loses and doubles nothing',
  { skip: await postgresSkip() },
  async (t) => {
    const base = await serviceEnvironment(t, {
      DATABASE_URL: `${postgresUrl}?schema=${testSchema()}`,
      SHIPLOG_SECRET_KEY: randomBytes(32).toString('hex'),
    })
    const account = createAccountWithCli(base)
    const role = async (roles: string, extra: Record<string, string> = {}) =>
      spawnServer({ ...base, PORT: String(await freePort()), ROLES: roles, ...extra })
    // Writes are acknowledged once stored: the projector may be down while they come in.
    const command = await role('command', { NODE_ID: '1', SHIPLOG_WRITE_VISIBILITY: 'appended' })
    const worker = await role('worker', { NODE_ID: '2' })
    const query = await role('query')
    let projector = await role('projector')
    t.teardown(async () => {
      for (const p of [command, worker, query, projector]) await p.kill('SIGKILL')
    })
    const rt = await openRuntime(loadConfig({ ...base, LOG_LEVEL: 'silent' }))
    t.teardown(() => rt.close())

    const acknowledged: number[] = []
    const post = async (batch: number) => {
      const trackers = Array.from({ length: BATCH }, (_, i) => ({
        order_number: `O${batch}-${i % 50}`,
        tracking_number: trackingNumberOf(batch, i),
      }))
      const answer = await call(command.url, account.private_key, '/v1/trackers', {
        method: 'POST',
        body: JSON.stringify({ trackers }),
      })
      t.equal(answer.status, 201, `batch ${batch} acknowledged`)
      if (answer.status === 201) acknowledged.push(batch)
    }
    for (let batch = 0; batch < 4; batch++) await post(batch)
    // Killed while it is behind the log: in the middle of projecting what came in.
    await until(
      async () => ((await rt.readStore.checkpoint('trackers')) ?? 0n) > 0n,
      (started) => started,
    )
    const behind = ((await rt.readStore.checkpoint('trackers')) ?? 0n) < (await rt.eventStore.head())
    await projector.kill('SIGKILL')
    t.ok(behind, 'the projector was killed with the log ahead of it')
    for (let batch = 4; batch < 6; batch++) await post(batch)
    projector = await role('projector')

    await until(
      async () => (await rt.readStore.checkpoint('trackers')) === (await rt.eventStore.head()),
      (caughtUp) => caughtUp,
      60_000,
    )
    let found = 0
    let doubled = 0
    for (const batch of acknowledged) {
      const numbers = Array.from({ length: BATCH }, (_, i) => trackingNumberOf(batch, i))
      const keys = await rt.readStore.keysByField(collections.trackers.name, account.id, 'tracking_number', numbers)
      found += keys.size
      doubled += [...keys.values()].filter((k) => k.length > 1).length
    }
    t.equal(found, acknowledged.length * BATCH, 'every acknowledged tracker is in the read model')
    t.equal(doubled, 0, 'none twice')
    const page = await call(query.url, account.private_key, `/v2/trackers?tracking_number=${trackingNumberOf(5, 7)}`)
    t.equal(((await page.json()) as { data: unknown[] }).data.length, 1, 'the query process answers for them')
  },
)
