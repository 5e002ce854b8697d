/**
 * GET /track/{token} (the customer's HTML page) and its JSON twin: latency
 * of random orders' pages at 1,000,000 orders of realistic size (two
 * parcels of five events each) in the embedded store. Target: p99 < 20 ms.
 * The figure is the client's, from request to the last byte, so the server's
 * own time is below it; GET /healthz, measured beside them, shows the client's
 * and the loopback's share. BENCH_ORDERS sets the size, BENCH_REQUESTS the sample.
 */
import { spawnSync } from 'node:child_process'
import { loadConfig } from '../shared/infra/config.ts'
import { openRuntime } from '../shared/infra/runtime.ts'
import { trackingTokens } from '../shared/infra/tracking-tokens.ts'
import { loadOrders } from './fixtures.ts'
import { benchServerProcess, conditions, ms, percentile } from './support.ts'

const SIZE = Number(process.env.BENCH_ORDERS ?? 1_000_000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)

console.log(
  `tracking-page: ${REQUESTS} sequential GETs of random orders' pages at ${SIZE.toLocaleString('en')} orders, server in its own process; ${conditions(true)}`,
)
const server = await benchServerProcess()
// The documents go straight into the server's read store, as its orders projection would write them;
// the loader shares the server's data directory, and so its key: its tokens open there.
const loader = await openRuntime(loadConfig({ ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }))
const account = server.accountId
const t0 = performance.now()
await loadOrders(loader.readStore, account, SIZE, Math.max(1, SIZE / 100))
const tokens = trackingTokens(loader.secrets)
console.log(`  loaded ${SIZE.toLocaleString('en')} orders in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
await loader.close()
// Let the OS write the load out first: its write-back would be measured as the first pages' latency.
spawnSync('sync')

const WARM_UP = 100

/** Latencies of `REQUESTS` GETs of `pathOf()`, after some that warm the caches; and the bytes of one answer. */
async function measure(pathOf: () => string) {
  const latencies: number[] = []
  let bytes = 0
  for (let n = 0; n < REQUESTS + WARM_UP; n++) {
    const path = pathOf()
    const t = performance.now()
    const response = await fetch(`${server.url}${path}`)
    const body = await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
    if (n >= WARM_UP) latencies.push(performance.now() - t)
    bytes = body.byteLength
  }
  return { median: percentile(latencies, 50), p99: percentile(latencies, 99), bytes }
}

const randomPage = (suffix: string) => () => {
  const i = Math.floor(Math.random() * SIZE)
  return `/track/${tokens.tokenOf({ accountId: account, orderId: 1_000_000_000 + i * 100, linkId: 0 })}${suffix}`
}
// The floor: a route that reads nothing, so the client's and the loopback's share of each figure shows.
for (const [name, pathOf] of [
  ['GET /healthz (the floor)', () => '/healthz'],
  ['HTML page', randomPage('')],
  ['JSON twin', randomPage('.json')],
] as const) {
  const r = await measure(pathOf)
  console.log(`${name.padEnd(25)} median ${ms(r.median)}, p99 ${ms(r.p99)}; ${(r.bytes / 1024).toFixed(1)} KB each`)
}
await server.close()
