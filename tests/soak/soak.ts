/**
 * npm run soak: ingest under faults for SOAK_SECONDS (default 600): two
 * clients post 1000-tracker batches while the service (in its own process,
 * embedded stores, Redis at REDIS_URL) is killed with SIGKILL every 5–30 s and
 * restarted. Prints requests, faults injected, trackers acknowledged and
 * found, duplicates, batches stored in part and 5xx answers, for
 * docs/reliability.md.
 */
import { rmSync } from 'node:fs'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BATCH, checkIngest, ingestUnderFaults, seeded } from '../support/faults.ts'
import { createAccountWithCli, processEnvironment, spawnServer } from '../support/process.ts'

const seconds = Number(process.env.SOAK_SECONDS ?? 600)
const seed = Number(process.env.SOAK_SEED ?? 20261123)
const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-soak-'))
const env = await processEnvironment(dataDir, 'soak')
const account = createAccountWithCli(env)
const started = Date.now()
const random = seeded(seed)
// Rounds of 5–30 s until the time is up: the number of rounds follows from the seed.
const rounds = Math.max(1, Math.round(seconds / 17.5))
console.log(
  `soak: ~${seconds} s, ${rounds} faults (SIGKILL every 5–30 s), seed ${seed}, 2 clients × ${BATCH}-tracker batches`,
)
const run = await ingestUnderFaults(env, account.private_key, {
  rounds,
  random,
  roundMs: [5000, 30_000],
  service: await spawnServer(env),
})
const check = await checkIngest(env, account.id, run)
rmSync(dataDir, { recursive: true, force: true })
const rows = [
  ['duration', `${Math.round((Date.now() - started) / 1000)} s`],
  ['requests', run.requests],
  ['faults injected (SIGKILL)', run.faults],
  ['batches acknowledged', run.acknowledged.length],
  ['trackers acknowledged', check.expected],
  ['trackers found', check.found],
  ['duplicates', check.duplicated],
  ['batches stored in part', check.partial.length],
  ['5xx answers', run.serverErrors],
  ['projections caught up', check.caughtUp ? 'yes' : 'no'],
]
for (const [name, value] of rows) console.log(`${String(name).padEnd(28)} ${value}`)
const sound =
  check.found === check.expected && check.duplicated === 0 && check.partial.length === 0 && run.serverErrors === 0
process.exit(sound && check.caughtUp ? 0 : 1)
