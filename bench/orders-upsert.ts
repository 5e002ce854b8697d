/**
 * POST /v2/orders as store plugins call it: one realistic order per request
 * (3 line items, 1 fulfillment, 1 tracker), from 4 concurrent clients; first
 * created, then each re-sent unchanged, which must append nothing (the log's
 * position does not move). Prints orders per second and latency for both.
 */
import { orderRequest } from './fixtures.ts'
import { benchServerProcess, conditions, ms, percentile, postBatches } from './support.ts'

const ORDERS = Number(process.env.BENCH_ORDERS ?? 3000)
const CONCURRENCY = 4

// SHIPLOG_WRITE_VISIBILITY, when set, reaches the server with the rest of the environment.
const server = await benchServerProcess()
const bodies = Array.from({ length: ORDERS }, (_, i) => orderRequest(i))
const run = (expected: number) => postBatches(server, '/v2/orders', bodies, CONCURRENCY, expected)

console.log(
  `orders-upsert: ${ORDERS} orders (3 line items, 1 fulfillment, 1 tracker), one per request, ${CONCURRENCY} clients; ${conditions(true)}`,
)
let cpu = server.cpuMeter()
const created = await run(201)
const createdCpu = cpu.per(ORDERS, 'order')
cpu = server.cpuMeter()
const resent = await run(200)
const resentCpu = cpu.per(ORDERS, 'order')
const line = (label: string, r: Awaited<ReturnType<typeof run>>) =>
  `${label} ${String(Math.round(ORDERS / r.seconds)).padStart(6)} orders/s   median ${ms(percentile(r.latencies, 50))}, p99 ${ms(percentile(r.latencies, 99))}`
console.log(`${line('created ', created)}   ${createdCpu}`)
console.log(`${line('re-sent ', resent)}   ${resentCpu}`)
console.log(
  `re-sent unchanged: log position ${created.lastPosition} before, highest answered ${resent.lastPosition} after (${resent.lastPosition <= created.lastPosition ? 'nothing appended' : 'APPENDED'})`,
)
await server.close()
if (resent.lastPosition > created.lastPosition) process.exit(1)
