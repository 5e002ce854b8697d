/**
 * One order a request, as store platforms post them: `POST /v2/orders` with
 * a realistic order (3 line items, a fulfillment, a tracker) from
 * ORDER_CLIENTS keep-alive clients, beside its floor in the same run: a
 * bare fastify process parsing the same bodies and answering 201, before
 * and after the service. Each side's rate is the median of three rounds of
 * ORDERS (a round lasts a few seconds, and one can meet a pause of the
 * machine's). Prints the rates, the ratio to the floor's mean, the
 * service's median and p99 latency over its rounds, and how much of a
 * write's time on the server went to storing it and then to making it
 * visible (its /metrics).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { ORDER_CLIENTS, orderRequest } from './fixtures.ts'
import { benchServerProcess, conditions, medianOfRounds, ms, percentile, postBatches, writeStages } from './support.ts'

const ORDERS = Number(process.env.BENCH_ORDERS ?? 4000)
/** Timed rounds of ORDERS new orders each, on either side; a side's rate is their median. */
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

/** A side's rounds of new orders to `target`: their median rate, and their latencies together. */
const rounds = async (target: { url: string; key: string }) => {
  const { rate, rates, runs } = await medianOfRounds(
    ROUNDS,
    (i) => postBatches(target, '/v2/orders', round(i), ORDER_CLIENTS),
    (r) => ORDERS / r.seconds,
  )
  return { rate, rates, latencies: runs.flatMap((r) => r.latencies) }
}

// The floor is measured before and after the service, and the ratio taken to
// the mean of the two: the machine's speed drifts within a run.
const bareRun = async () => {
  const floor = await bareFastify()
  for (let i = 0; i < FLOOR_WARMUPS; i++) await postBatches(floor, '/v2/orders', warm, ORDER_CLIENTS)
  const run = await rounds(floor)
  floor.close()
  return run
}
const bareBefore = await bareRun()

// The rate limit still runs on every request, at a ceiling the run stays under.
const server = await benchServerProcess({ RATE_LIMIT_PER_MINUTE: '1000000' })
await postBatches(server, '/v2/orders', warm, ORDER_CLIENTS)
const cpu = server.cpuMeter()
const stages = await writeStages(server)
const service = await rounds(server)
const serviceCpu = cpu.per(ROUNDS * ORDERS, 'order', 'µs')
const serviceStages = await stages.since()
await server.close()
const bareAfter = await bareRun()

const line = (label: string, r: typeof service) =>
  `${label} ${String(Math.round(r.rate)).padStart(7)} orders/s (median of ${r.rates.map(Math.round).join(', ')})   median ${ms(percentile(r.latencies, 50))}, p99 ${ms(percentile(r.latencies, 99))}`
console.log(line('(a) bare fastify parsing the bodies', bareBefore))
console.log(line('(a) the same, after (b)            ', bareAfter))
console.log(`${line('(b) the service, created          ', service)}   ${serviceCpu}`)
console.log(`    ${serviceStages}`)
const floorRate = (bareBefore.rate + bareAfter.rate) / 2
console.log(
  `(b) against the mean of (a): ${((100 * service.rate) / floorRate).toFixed(1)} % (target ≥ 25 %); median ${ms(percentile(service.latencies, 50))} (target < 10 ms)`,
)
