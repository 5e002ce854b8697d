import t from 'tap'
import { openRuntime } from '../../shared/infra/runtime.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { call, createAccountWithCli, serviceEnvironment, spawnServer } from '../support/process.ts'

/*
 * The service killed with SIGKILL at random moments while two clients post
 * 1000-tracker batches, restarted each time. Afterwards every tracker of every
 * acknowledged batch is there exactly once, a batch whose answer was lost is
 * there whole or not at all, and the projections have caught up with the log.
 * The moments are drawn from a seeded generator, so a failure is repeatable.
 */

const ROUNDS = 3
const BATCH = 1000

/** A small seeded generator (mulberry32). */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

t.test('kill -9 during ingest: acknowledged batches whole and once, lost answers all or nothing', async (t) => {
  const random = seeded(2026)
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env)
  let service = await spawnServer(env)
  t.teardown(() => service.kill('SIGKILL'))
  const acknowledged: number[] = []
  const unanswered: number[] = []
  let next = 0
  const numberOf = (batch: number, i: number) => `K${batch}-${i}`

  for (let round = 0; round < ROUNDS; round++) {
    let running = true
    const clients = Array.from({ length: 2 }, async () => {
      while (running) {
        const batch = next++
        const trackers = Array.from({ length: BATCH }, (_, i) => ({
          order_number: `O${batch}-${i % 50}`,
          tracking_number: numberOf(batch, i),
        }))
        const answered = await call(service.url, account.private_key, '/v1/trackers', {
          method: 'POST',
          body: JSON.stringify({ trackers }),
        }).then(
          (r) => r.status,
          () => 0,
        )
        if (answered === 201) acknowledged.push(batch)
        else unanswered.push(batch)
      }
    })
    await new Promise((r) => setTimeout(r, 500 + random() * 1500))
    await service.kill('SIGKILL')
    running = false
    await Promise.all(clients)
    service = await spawnServer(env)
  }
  t.ok(acknowledged.length >= ROUNDS, `${acknowledged.length} batches acknowledged, ${unanswered.length} cut off`)

  // Let the projections catch up, then read the stores directly.
  const deadline = Date.now() + 30_000
  while ((await fetch(`${service.url}/readyz`)).status !== 200 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 200))
  await service.kill('SIGTERM')
  const rt = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }))
  t.teardown(() => rt.close())
  const head = await rt.eventStore.head()
  t.equal(await rt.readStore.checkpoint('trackers'), head, 'the projections have caught up with the log')
  const count = async (batch: number) => {
    const numbers = Array.from({ length: BATCH }, (_, i) => numberOf(batch, i))
    const found = await rt.readStore.keysByField(collections.trackers.name, account.id, 'tracking_number', numbers)
    return { present: found.size, duplicated: [...found.values()].filter((keys) => keys.length > 1).length }
  }
  for (const batch of acknowledged) {
    t.same(await count(batch), { present: BATCH, duplicated: 0 }, `acknowledged batch ${batch}: every tracker, once`)
  }
  for (const batch of unanswered) {
    const { present, duplicated } = await count(batch)
    t.ok(present === 0 || present === BATCH, `batch ${batch}, its answer lost: ${present} of ${BATCH} (all or nothing)`)
    t.equal(duplicated, 0)
  }
})
