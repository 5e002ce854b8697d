/**
 * Rebuild of the orders projection from 1,000,000 events on the embedded
 * stores, in events per second, beside the raw rate of reading the same events
 * without projecting. Targets: ≥ 50,000 events/s, and at least a third of the
 * raw read rate. BENCH_EVENTS sets the size.
 */
import { randomUUID } from 'node:crypto'
import { decideTrackerUpserts } from '../shared/domain/orders/upsert-trackers.ts'
import { ordersProjection } from '../projectors/projections.ts'
import { rebuildProjection } from '../projectors/runner.ts'
import type { AppendRequest } from '../shared/infra/event-store/port.ts'
import { orderStream } from '../shared/domain/orders/state.ts'
import { benchServer, conditions } from './support.ts'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000)
const server = await benchServer({ ROLES: 'command,query' }) // no live projector: the rebuild has the machine
const { eventStore, ids } = server.runtime
const metadata = { accountId: server.accountId, correlationId: 'bench', recordedAt: Date.now() }

// Orders of two trackers: 6 events each (created, notification, 2 × fulfillment + tracker).
let written = 0
for (let o = 0; written < EVENTS; o += 1000) {
  const appends: AppendRequest[] = []
  for (let i = o; i < o + 1000 && written < EVENTS; i++) {
    const { events } = decideTrackerUpserts(
      {
        now: 1_800_000_000,
        accountLanguage: 'en',
        ids,
        items: [0, 1].map((k) => ({
          order_number: `R-${i}`,
          tracking_number: `1Z${i}${k}`,
          email: `c${i}@example.com`,
          address_city: 'Lyon',
          carrier_code: 'ups',
        })),
      },
      undefined,
    )
    appends.push({
      stream: orderStream(server.accountId, `R-${i}`),
      expected: 'no_stream',
      events: events.map((e) => ({ id: randomUUID(), ...e, metadata })),
    })
    written += events.length
  }
  await eventStore.append(appends)
}

let t0 = performance.now()
let read = 0
for (let after: bigint | undefined; ; ) {
  const page = await eventStore.readAll({ after, limit: 5000 })
  if (page.length === 0) break
  for (const e of page) if (e.data === undefined) throw new Error('unreadable event') // parse, as a projector would
  read += page.length
  after = page[page.length - 1]!.position
}
const rawRate = read / ((performance.now() - t0) / 1000)

t0 = performance.now()
await rebuildProjection(server.runtime, ordersProjection)
const rebuildRate = read / ((performance.now() - t0) / 1000)

console.log(
  `replay: ${read.toLocaleString('en')} events (${Math.round(read / 6).toLocaleString('en')} orders); ${conditions()}`,
)
console.log(`raw read (parse only)      ${Math.round(rawRate).toLocaleString('en').padStart(9)} events/s`)
console.log(
  `orders projection rebuild  ${Math.round(rebuildRate).toLocaleString('en').padStart(9)} events/s  (${((rebuildRate / rawRate) * 100).toFixed(0)}% of raw)`,
)
await server.close()
