/**
 * Sustained POST /v1/trackers ingest over HTTP with 1000-item batches on the
 * embedded stores: new items, then the same items again (updates), then the
 * time until the last batch is visible in GET /v2/orders.
 * Targets: ≥ 10,000 trackers/s sustained; median batch < 250 ms.
 * "Sustained" is the rate once the server is warm: a fresh process runs its
 * first batches before V8 has optimised the hot code (2–3× slower), so
 * BENCH_WARMUP batches of other orders go first and are not counted.
 * BENCH_ROLES=command,query measures the write path without projecting.
 */
import { benchServerProcess, conditions, ms, msUntil, percentile, postBatches } from './support.ts'

const BATCHES = Number(process.env.BENCH_BATCHES ?? 60)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 6)
const BATCH_SIZE = 1000
const CONCURRENCY = 2

const server = await benchServerProcess(process.env.BENCH_ROLES ? { ROLES: process.env.BENCH_ROLES } : {})
const batch = (b: number) =>
  Array.from({ length: BATCH_SIZE }, (_, i) => ({
    order_number: `B${b}-O${Math.floor(i / 2)}`, // two trackers per order
    tracking_number: `1Z${String(b).padStart(4, '0')}${String(i).padStart(6, '0')}`,
    email: `customer${i}@example.com`,
    first_name: 'Jo',
    address_country: 'FR',
    address_city: 'Lyon',
    phone: `06 ${String(b * BATCH_SIZE + i).padStart(8, '0')}`, // a different customer each item
    carrier_code: 'ups',
  }))
const bodies = Array.from({ length: BATCHES }, (_, b) => JSON.stringify({ trackers: batch(b) }))
// Warm-up orders are numbered after the measured ones.
const warmups = Array.from({ length: WARMUP }, (_, b) => JSON.stringify({ trackers: batch(BATCHES + b) }))

/** Posts the bodies from the concurrent clients; with a label, prints the run's figures (warm-up runs have none). */
async function run(bodies: readonly string[], label?: string) {
  const cpu = server.cpuMeter()
  const { latencies, seconds, lastPosition } = await postBatches(server, '/v1/trackers', bodies, CONCURRENCY)
  if (label === undefined) return lastPosition
  const rate = (BATCHES * BATCH_SIZE) / seconds
  console.log(
    `${label.padEnd(16)} ${String(Math.round(rate)).padStart(7)} trackers/s   batch median ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}   ${cpu.per(BATCHES, 'batch')}`,
  )
  return lastPosition
}

console.log(
  `trackers-ingest: ${BATCHES} batches × ${BATCH_SIZE} trackers after ${WARMUP} warm-up batches, ${CONCURRENCY} concurrent clients, server in its own process; ${conditions(true)}`,
)
await run(warmups)
await run(bodies, 'new items')
const lastPosition = await run(bodies, 'repeated items')
if (process.env.BENCH_ROLES && !process.env.BENCH_ROLES.includes('projector')) {
  await server.close()
  process.exit(0)
}
const last = `B${BATCHES - 1}-O${BATCH_SIZE / 2 - 1}`
const visible = await msUntil(server, `/v2/orders?order_number=${last}`, (body) => body.data.length > 0)
console.log(`visible in GET /v2/orders ${ms(visible)} after the last batch was answered (position ${lastPosition})`)
await server.close()
