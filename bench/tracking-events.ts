/**
 * Sustained POST /v2/trackers/events over HTTP: 1000-event batches on
 * existing trackers (each event a new scan of a different tracker, moving its
 * status), from 2 concurrent clients; then the time until the last batch is
 * visible in GET /v2/trackers, and how long a page of 100 trackers takes.
 * By default the run takes every tracker through its six scans, from
 * label_created to delivered (the warm-up batches are the first of them).
 * Target: ≥ 15,000 carrier events/s on trackers with six scans each.
 */
import {
  benchServerProcess,
  conditions,
  ms,
  measureBatches,
  msUntil,
  percentile,
  postBatches,
  scanSteps,
  scanWorkload,
  timeGets,
  viewsRendered,
} from './support.ts'
import { type EventTypeCode, statusOfEvent } from '../shared/domain/vocabulary/tracking-codes.ts'

const TRACKERS = Number(process.env.BENCH_TRACKERS ?? 20_000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4)
const BATCH_SIZE = 1000
const BATCHES = Number(process.env.BENCH_BATCHES ?? (scanSteps.length * TRACKERS) / BATCH_SIZE - WARMUP)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2)

const server = await benchServerProcess()
const { trackerBodies, eventBatch } = scanWorkload(TRACKERS, BATCH_SIZE)

console.log(
  `tracking-events: ${TRACKERS} trackers, then ${BATCHES} batches × ${BATCH_SIZE} events after ${WARMUP} warm-up batches, ${CONCURRENCY} concurrent clients, server in its own process; ${conditions(true)}`,
)
await postBatches(server, '/v1/trackers', trackerBodies, CONCURRENCY)
await postBatches(
  server,
  '/v2/trackers/events',
  Array.from({ length: WARMUP }, (_, n) => eventBatch(n)),
  CONCURRENCY,
)
const bodies = Array.from({ length: BATCHES }, (_, n) => eventBatch(WARMUP + n))
const fresh = await measureBatches(server, '/v2/trackers/events', bodies, {
  concurrency: CONCURRENCY,
  itemsPerBatch: BATCH_SIZE,
})
// Resident memory once every tracker has been scanned: the orders the write side remembers are in it.
const memory = server.memoryMb()
console.log(
  `new events ${String(Math.round(fresh.rate)).padStart(7)} events/s   batch median ${ms(fresh.median)}, p99 ${ms(fresh.p99)}   ${fresh.cpu}; ${fresh.clientCpu}; server RSS ${memory.rss.toFixed(0)} MB (peak ${memory.peak.toFixed(0)} MB)`,
)
console.log(`then ${await viewsRendered(server)}`)
const repeat = await measureBatches(server, '/v2/trackers/events', bodies.slice(-10), {
  concurrency: CONCURRENCY,
  itemsPerBatch: BATCH_SIZE,
})
console.log(
  `repeated events ${String(Math.round(repeat.rate)).padStart(7)} events/s (all duplicates)   batch median ${ms(repeat.median)}   ${repeat.cpu}`,
)
const lastEvent = JSON.parse(bodies.at(-1)!).events.at(-1)
const visible = await msUntil(
  server,
  `/v2/trackers?tracking_number=${lastEvent.tracking_number}&expand[]=events`,
  (body) => body.data[0]?.events.data.some((e: { happened_at: number }) => e.happened_at === lastEvent.happened_at),
)
console.log(`visible in GET /v2/trackers ${ms(visible)} after the last batch was answered`)
// Trackers are listed through their index and read from their orders' documents.
// Filtered on the status the last batch moved its trackers to, which some trackers hold however long the run.
const lastStatus = statusOfEvent[lastEvent.event_type_code as EventTypeCode]
for (const query of ['expand[]=events', `delivery_status_code=${lastStatus}&expand[]=events.address`]) {
  const latencies = await timeGets(server, () => `/v2/trackers?limit=100&${query}`, 100)
  console.log(
    `GET /v2/trackers?limit=100&${query}: median ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`,
  )
}
await server.close()
