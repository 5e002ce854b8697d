/**
 * Sustained POST /v1/trackers ingest over HTTP with 1000-item batches on the
 * embedded stores: new items, then the same items again (updates), then the
 * time until the last batch is visible in GET /v2/orders.
 * Targets: ≥ 15,000 new trackers/s and ≥ 20,000 repeated items/s sustained,
 * median batch < 150 ms, visible within 50 ms.
 * "Sustained" is the rate once the server is warm: a fresh process runs its
 * first batches before V8 has optimised the hot code (2–3× slower), so
 * BENCH_WARMUP batches of other orders go first and are not counted.
 * BENCH_ROLES=command,query measures the write path without projecting.
 * BENCH_MINUTES=n keeps posting new batches for n minutes instead, printing
 * the rate, the server's resident memory and the stores' size each minute; it
 * stops early, saying so, when the disk would not hold another minute.
 */
import { readdirSync, statfsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { benchServerProcess, conditions, measureBatches, ms, msUntil, trackerBatch, viewsRendered } from './support.ts'

const BATCHES = Number(process.env.BENCH_BATCHES ?? 60)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 6)
const MINUTES = Number(process.env.BENCH_MINUTES ?? 0)
const BATCH_SIZE = 1000
const CONCURRENCY = 2

const server = await benchServerProcess(process.env.BENCH_ROLES ? { ROLES: process.env.BENCH_ROLES } : {})
const body = (b: number) => JSON.stringify({ trackers: trackerBatch(b, BATCH_SIZE) })
const bodies = Array.from({ length: BATCHES }, (_, b) => body(b))
// Warm-up orders are numbered after the measured ones.
const warmups = Array.from({ length: WARMUP }, (_, b) => body(BATCHES + b))

/** Posts the bodies from the concurrent clients and prints the run's figures. */
async function run(bodies: readonly string[], label: string) {
  const measured = await measureBatches(server, '/v1/trackers', bodies, {
    concurrency: CONCURRENCY,
    itemsPerBatch: BATCH_SIZE,
  })
  console.log(
    `${label.padEnd(16)} ${String(Math.round(measured.rate)).padStart(7)} trackers/s   batch median ${ms(measured.median)}, p99 ${ms(measured.p99)}   ${measured.cpu}; ${measured.clientCpu}`,
  )
  return measured.lastPosition
}

console.log(
  `trackers-ingest: ${MINUTES ? `${MINUTES} minutes of` : BATCHES} batches × ${BATCH_SIZE} trackers after ${WARMUP} warm-up batches, ${CONCURRENCY} concurrent clients, server in its own process; ${conditions(true)}`,
)
await measureBatches(server, '/v1/trackers', warmups, { concurrency: CONCURRENCY, itemsPerBatch: BATCH_SIZE })
if (MINUTES > 0) {
  // Sustained ingest: a minute's worth of new batches at a time, numbered on from the last.
  let next = BATCHES + WARMUP
  const storesBytes = () =>
    readdirSync(server.dataDir).reduce((sum, name) => sum + statSync(join(server.dataDir, name)).size, 0)
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`
  let lastStored = storesBytes()
  for (let minute = 1; minute <= MINUTES; minute++) {
    const started = performance.now()
    let rates = 0
    let runs = 0
    while (performance.now() - started < 60_000) {
      const chunk = Array.from({ length: 20 }, () => body(next++))
      rates += (
        await measureBatches(server, '/v1/trackers', chunk, { concurrency: CONCURRENCY, itemsPerBatch: BATCH_SIZE })
      ).rate
      runs++
    }
    const memory = server.memoryMb()
    const stored = storesBytes()
    console.log(
      `minute ${String(minute).padStart(2)}: ${Math.round(rates / runs)} trackers/s, ${(next - BATCHES) * BATCH_SIZE} trackers stored, server RSS ${memory.rss.toFixed(0)} MB (peak ${memory.peak.toFixed(0)} MB), stores ${gb(stored)}`,
    )
    const { bavail, bsize } = statfsSync(server.dataDir)
    const grown = stored - lastStored
    lastStored = stored
    if (minute < MINUTES && bavail * bsize < 2 * grown) {
      console.log(
        `stopped after ${minute} minutes: ${gb(bavail * bsize)} left on the disk, and a minute wrote ${gb(grown)}`,
      )
      break
    }
  }
  await server.close()
  process.exit(0)
}
/** A server without the projector role (BENCH_ROLES) renders no views and shows nothing to read back. */
const projects = !process.env.BENCH_ROLES || process.env.BENCH_ROLES.includes('projector')
await run(bodies, 'new items')
if (projects) console.log(`then ${await viewsRendered(server)}`)
const lastPosition = await run(bodies, 'repeated items')
if (!projects) {
  await server.close()
  process.exit(0)
}
const last = `B${BATCHES - 1}-O${BATCH_SIZE / 2 - 1}`
const visible = await msUntil(server, `/v2/orders?order_number=${last}`, (body) => body.data.length > 0)
console.log(`visible in GET /v2/orders ${ms(visible)} after the last batch was answered (position ${lastPosition})`)
await server.close()
