import { loadConfig } from '../../shared/infra/config.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { openRuntime } from '../../shared/infra/runtime.ts'
import { call, type ServerProcess, spawnServer } from './process.ts'

/*
 * Ingest under faults, shared by the reliability test (a few bounded rounds)
 * and the soak (`npm run soak`, for as long as asked): clients post
 * 1000-tracker batches while the service is killed with SIGKILL at seeded
 * random moments and restarted; then the stores are read to check that
 * nothing acknowledged was lost or doubled.
 */

export const BATCH = 1000
const CLIENTS = 2

/** A small seeded generator (mulberry32): the same seed, the same moments. */
export function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

export const trackingNumberOf = (batch: number, i: number) => `K${batch}-${i}`

export interface IngestRun {
  acknowledged: number[]
  /** Batches whose answer was lost (the service died under them): all or nothing may be stored. */
  unanswered: number[]
  requests: number
  serverErrors: number
  faults: number
  service: ServerProcess
}

/**
 * Posts batches from two clients for `rounds` rounds, killing the service at
 * a random moment in each. With `acknowledgedAtLeast`, rounds go on (up to
 * three times as many) until that many batches were acknowledged: on a slow
 * host a restarted service may answer nothing before the next kill.
 */
export async function ingestUnderFaults(
  env: NodeJS.ProcessEnv & { PORT: string },
  key: string,
  options: {
    rounds: number
    random: () => number
    roundMs: [number, number]
    service: ServerProcess
    acknowledgedAtLeast?: number
  },
): Promise<IngestRun> {
  const run: IngestRun = {
    acknowledged: [],
    unanswered: [],
    requests: 0,
    serverErrors: 0,
    faults: 0,
    service: options.service,
  }
  let next = 0
  const enough = () => run.acknowledged.length >= (options.acknowledgedAtLeast ?? 0)
  for (let round = 0; round < options.rounds || (!enough() && round < 3 * options.rounds); round++) {
    let running = true
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (running) {
        const batch = next++
        const trackers = Array.from({ length: BATCH }, (_, i) => ({
          order_number: `O${batch}-${i % 50}`,
          tracking_number: trackingNumberOf(batch, i),
        }))
        run.requests++
        const status = await call(run.service.url, key, '/v1/trackers', {
          method: 'POST',
          body: JSON.stringify({ trackers }),
        }).then(
          (r) => r.status,
          () => 0,
        )
        if (status >= 500) run.serverErrors++
        if (status === 201) run.acknowledged.push(batch)
        else run.unanswered.push(batch)
      }
    })
    const [least, most] = options.roundMs
    await new Promise((r) => setTimeout(r, least + options.random() * (most - least)))
    await run.service.kill('SIGKILL')
    run.faults++
    running = false
    await Promise.all(clients)
    run.service = await spawnServer(env)
  }
  return run
}

export interface IngestCheck {
  caughtUp: boolean
  /** Acknowledged trackers found, of those expected. */
  found: number
  expected: number
  duplicated: number
  /** Batches stored in part (must be none). */
  partial: number[]
}

/** Waits for the projections, stops the service, and reads the stores. */
export async function checkIngest(env: NodeJS.ProcessEnv, accountId: number, run: IngestRun): Promise<IngestCheck> {
  const deadline = Date.now() + 60_000
  while (
    (await fetch(`${run.service.url}/readyz`).then(
      (r) => r.status,
      () => 0,
    )) !== 200 &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 200))
  }
  await run.service.kill('SIGTERM')
  const rt = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }))
  try {
    const caughtUp = (await rt.readStore.checkpoint('trackers')) === (await rt.eventStore.head())
    const count = async (batch: number) => {
      const numbers = Array.from({ length: BATCH }, (_, i) => trackingNumberOf(batch, i))
      const found = await rt.readStore.keysByField(collections.trackers.name, accountId, 'tracking_number', numbers)
      return { present: found.size, duplicated: [...found.values()].filter((keys) => keys.length > 1).length }
    }
    const check: IngestCheck = {
      caughtUp,
      found: 0,
      expected: run.acknowledged.length * BATCH,
      duplicated: 0,
      partial: [],
    }
    for (const batch of run.acknowledged) {
      const { present, duplicated } = await count(batch)
      check.found += present
      check.duplicated += duplicated
      if (present !== BATCH) check.partial.push(batch)
    }
    for (const batch of run.unanswered) {
      const { present, duplicated } = await count(batch)
      check.duplicated += duplicated
      if (present !== 0 && present !== BATCH) check.partial.push(batch)
    }
    return check
  } finally {
    await rt.close()
  }
}
