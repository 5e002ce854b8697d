/**
 * One order a request, as store platforms post them: `POST /v2/orders` with
 * a realistic order (3 line items, a fulfillment, a tracker) from
 * ORDER_CLIENTS keep-alive clients, beside its floor in the same run: a
 * bare fastify process parsing the same bodies and answering 201. Both run
 * side by side and their rounds alternate, a floor round before and after
 * each of the service's, so that each service round is compared with the
 * floor measured around it: the machine's speed drifts within a run, by a
 * fifth between one half-minute and the next. Each round is ORDERS new
 * orders; before a floor round the service finishes the idle work the last
 * round left (the orders' full views). Prints every round's rate, the
 * median of the service rounds' ratios to their floors, the service's
 * median and p99 latency, its CPU an order (the views rendered after each
 * round included) and how much of a write's time on the server went to
 * storing it and then to making it visible (its /metrics).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { ORDER_CLIENTS, orderRequest } from './fixtures.ts'
import {
  benchServerProcess,
  conditions,
  ms,
  percentile,
  postBatches,
  untilViewsRendered,
  writeStages,
} from './support.ts'

const ORDERS = Number(process.env.BENCH_ORDERS ?? 4000)
/** Timed rounds of the service, ORDERS new orders each; the floor has one more, around them. */
const ROUNDS = 3
// Long enough for V8 to finish optimising the hot paths: with a few hundred,
// its compiler threads still take a fifth of the CPU in the timed part.
const WARMUP = 5000
/**
 * The bare process is warmed with the warm-up bodies this many times: it
 * reaches its pace only after some 20,000 requests, and after 5,000 it ran
 * at half of it. The service's pace is the same after 5,000 as after 20,000.
 */
const FLOOR_WARMUPS = 4

async function bareFastify() {
  const child = spawn(process.execPath, ['bench/bare-fastify.mjs'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [port] = (await once(child.stdout!, 'data')) as [Buffer]
  return { url: `http://127.0.0.1:${Number(String(port))}`, key: '', close: () => child.kill('SIGTERM') }
}

const bodies = Array.from({ length: WARMUP + ROUNDS * ORDERS }, (_, i) => orderRequest(i))
const warm = bodies.slice(0, WARMUP)
const round = (i: number) => bodies.slice(WARMUP + i * ORDERS, WARMUP + (i + 1) * ORDERS)
console.log(
  `orders-single: ${ROUNDS} rounds of ${ORDERS} orders (3 line items, 1 fulfillment, 1 tracker) after ${WARMUP} to warm up, one per request, ${ORDER_CLIENTS} keep-alive clients; ${conditions(true)}`,
)

// The rate limit still runs on every request, at a ceiling the run stays under.
const server = await benchServerProcess({ RATE_LIMIT_PER_MINUTE: '1000000' })
await postBatches(server, '/v2/orders', warm, ORDER_CLIENTS)
await untilViewsRendered(server.dataDir, 20)
// The floor is warmed last, right before its first round.
const floor = await bareFastify()
for (let i = 0; i < FLOOR_WARMUPS; i++) await postBatches(floor, '/v2/orders', warm, ORDER_CLIENTS)

const cpu = server.cpuMeter()
const stages = await writeStages(server)
/** The floor's rounds reuse the first round's bodies: it keeps nothing. */
const floorRound = () => postBatches(floor, '/v2/orders', round(0), ORDER_CLIENTS)
const floorRuns = [await floorRound()]
const serviceRuns: Awaited<ReturnType<typeof postBatches>>[] = []
for (let i = 0; i < ROUNDS; i++) {
  serviceRuns.push(await postBatches(server, '/v2/orders', round(i), ORDER_CLIENTS))
  await untilViewsRendered(server.dataDir, 20)
  floorRuns.push(await floorRound())
}
const serviceCpu = cpu.per(ROUNDS * ORDERS, 'order', 'µs')
const serviceStages = await stages.since()
floor.close()
await server.close()

const rateOf = (run: { seconds: number }) => ORDERS / run.seconds
const floorRates = floorRuns.map(rateOf)
const serviceRates = serviceRuns.map(rateOf)
const ratios = serviceRates.map((rate, i) => rate / ((floorRates[i]! + floorRates[i + 1]!) / 2))
const latencies = serviceRuns.flatMap((run) => run.latencies)
const rates = (list: number[]) => list.map((r) => String(Math.round(r)).padStart(6)).join(' ')
console.log(`(a) bare fastify parsing the bodies, orders/s by round: ${rates(floorRates)}`)
console.log(
  `(b) the service, created, orders/s by round:        ${rates(serviceRates)}   median ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}   ${serviceCpu}`,
)
console.log(`    ${serviceStages}`)
console.log(
  `(b) against (a) around it, by round: ${ratios.map((r) => `${(100 * r).toFixed(1)} %`).join(', ')}; median ${(100 * percentile(ratios, 50)).toFixed(1)} % (target ≥ 25 %); median latency ${ms(percentile(latencies, 50))} (target < 10 ms)`,
)
