/**
 * The projector alone on carrier events, in one process: 20,000 trackers (two
 * per order), then 40 batches of 1000 carrier events each moving a tracker on
 * (with an address), appended as `POST /v2/trackers/events` plans them, no
 * HTTP; then every read model catches up on those events through the live
 * runner, one commit a batch. Prints carrier events per second, the CPU time
 * per 1000 (every thread of the process: the projector's own and V8's GC
 * helpers) and the bytes the read store's write-ahead log grew by. Steadier
 * than the HTTP benchmark: nothing else runs meanwhile.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { createOrderStates } from '../commands/trackers/upsert.ts'
import { planTrackingEvents, trackingEventsBody } from '../commands/trackers/events.ts'
import { benchRequest, benchStores, conditions, decidedAppends, projectAll, trackerBatch } from './support.ts'

const TRACKER_BATCHES = 20
const BATCHES = Number(process.env.BENCH_BATCHES ?? 40)
const BATCH_SIZE = 1000
const TRACKERS = TRACKER_BATCHES * BATCH_SIZE
const T0 = 1_795_000_000
const steps = ['label_created', 'origin_scan', 'transit', 'transit', 'out_for_delivery', 'delivered'] as const

// No WAL checkpoint in the run: the log's growth is what the projector wrote.
const stores = await benchStores({ walCheckpoints: 'background' })
const { runtime, accountId } = stores

for (let b = 0; b < TRACKER_BATCHES; b++)
  await runtime.eventStore.append(await decidedAppends(runtime, accountId, trackerBatch(b)))
await projectAll(runtime)

const trackingNumbers = Array.from({ length: TRACKER_BATCHES }, (_, b) =>
  trackerBatch(b).map((t) => t.tracking_number),
).flat()
/** Batch n: the next step of 1000 trackers, round-robin over all of them. */
const eventBatch = (n: number) =>
  trackingEventsBody.parse({
    events: Array.from({ length: BATCH_SIZE }, (_, i) => {
      const k = n * BATCH_SIZE + i
      const step = Math.floor(k / TRACKERS)
      return {
        tracking_number: trackingNumbers[k % TRACKERS]!,
        event_type_code: steps[step % steps.length],
        happened_at: T0 + step * 3600,
        message: `Scan ${step}`,
        address: { city: 'Lyon', zip: '69001', country_code: 'FR' },
      }
    }),
  }).events
const orders = createOrderStates(runtime.config.ORDER_CACHE_SIZE, runtime.config.ORDER_CACHE_MB)
const request = benchRequest(accountId)
for (let n = 0; n < BATCHES; n++) {
  const plan = await planTrackingEvents(runtime, orders, request, eventBatch(n))()
  await runtime.eventStore.append(plan.appends)
}

const walBytes = () => statSync(join(stores.dataDir, 'read.db-wal')).size
const events = Number((await runtime.eventStore.head()) - ((await runtime.readStore.checkpoint('orders')) ?? 0n))
const wal = walBytes()
const cpu = process.cpuUsage()
const t0 = performance.now()
await projectAll(runtime)
const seconds = (performance.now() - t0) / 1000
const { user, system } = process.cpuUsage(cpu)
const carrierEvents = BATCHES * BATCH_SIZE
console.log(
  `carrier-projection: ${TRACKERS.toLocaleString('en')} trackers, then ${carrierEvents.toLocaleString('en')} carrier events (${events.toLocaleString('en')} events in the log) projected by every read model in one thread; ${conditions()}`,
)
console.log(
  `projected ${Math.round(carrierEvents / seconds)
    .toLocaleString('en')
    .padStart(
      6,
    )} carrier events/s   CPU ${(((user + system) / 1000) * (1000 / carrierEvents)).toFixed(0)} ms per 1000 (all threads)   read store's log +${((walBytes() - wal) / carrierEvents).toFixed(0)} bytes per carrier event`,
)
await stores.close()
