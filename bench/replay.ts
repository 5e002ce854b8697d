/**
 * Rebuild of the orders projection from 1,000,000 events on the embedded
 * stores, in events per second, beside the raw rate of reading the same events
 * without projecting. Targets: ≥ 50,000 events/s, and at least a third of the
 * raw read rate. BENCH_EVENTS sets the size. The replay runs in a process of
 * its own on the log this one wrote, as `shiplog projections rebuild` would.
 */
import {
  benchStores,
  conditions,
  decidedAppends,
  eventsOf,
  replayInOwnProcess,
  shiplogRuns,
  trackerBatch,
} from './support.ts'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const server = await benchStores() // no live projector: the rebuild has the machine

// The events of POST /v1/trackers batches on new orders, 1000 trackers a batch.
for (let b = 0, written = 0; written < EVENTS; b++) {
  const appends = await decidedAppends(server.runtime, server.accountId, trackerBatch(b))
  await server.runtime.eventStore.append(appends)
  written += eventsOf(appends)
}

const { events, raw, rebuild, views, viewSeconds } = await replayInOwnProcess(server)
console.log(
  `replay: ${events.toLocaleString('en')} events; ${conditions()}; rebuilt by \`shiplog projections rebuild orders\` (${shiplogRuns()})`,
)
console.log(`raw read (parse only)      ${Math.round(raw).toLocaleString('en').padStart(9)} events/s`)
console.log(
  `orders projection rebuild  ${Math.round(rebuild).toLocaleString('en').padStart(9)} events/s  (${((rebuild / raw) * 100).toFixed(0)}% of raw)`,
)
console.log(
  `then, as the live projector does when idle, the full views of ${views.toLocaleString('en')} orders in ${viewSeconds.toFixed(1)} s (${Math.round(views / viewSeconds).toLocaleString('en')} orders/s, one thread)`,
)
