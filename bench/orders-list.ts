/**
 * GET /v2/orders?limit=100 latency with all nine expansions, with each filter
 * and on a deep page, at 10,000 and at 1,000,000 orders of realistic size (two
 * trackers of five events each) in the embedded store, side by side.
 * Targets: p99 < 30 ms, and the 1,000,000 figure within 1.5× of the 10,000 one.
 * BENCH_ORDERS=10000,1000000 sets the sizes.
 */
import { spawnSync } from 'node:child_process'
import { Expansion, orderExpandPaths } from '../projectors/resources/expansion.ts'
import { renderOrder } from '../projectors/resources/render.ts'
import { loadConfig } from '../shared/infra/config.ts'
import { ORDER_FULL_VIEW } from '../shared/infra/read-store/collections.ts'
import { openRuntime } from '../shared/infra/runtime.ts'
import { loadOrders, T0 } from './fixtures.ts'
import { benchServerProcess, conditions, ms, percentile, timeGets } from './support.ts'

const SIZES = (process.env.BENCH_ORDERS ?? '10000,1000000').split(',').map(Number)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
/** Orders per customer e-mail, whatever the size: an e-mail filter always fills a page of 100. */
const ORDERS_PER_EMAIL = 100
const full = Expansion.full(orderExpandPaths)

async function measure(size: number) {
  const server = await benchServerProcess()
  // The documents go straight into the server's read store, as its orders projection would write them.
  const loader = await openRuntime(loadConfig({ ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }))
  const { readStore } = loader
  const account = server.accountId
  const emails = Math.max(1, Math.floor(size / ORDERS_PER_EMAIL))
  const t0 = performance.now()
  // As the projector renders the full view when idle.
  await loadOrders(readStore, account, size, emails, (doc) => ({
    [ORDER_FULL_VIEW]: JSON.stringify(renderOrder(doc, full)),
  }))
  await loader.close()
  const loadSeconds = (performance.now() - t0) / 1000
  // Let the OS write the gigabytes just loaded out to disk first: months of
  // orders do not arrive in four minutes, and their write-back would be measured
  // as the first queries' latency (it once made a p99 of 60 ms).
  spawnSync('sync')
  const expand = orderExpandPaths.map((p) => `expand[]=${p}`).join('&')
  const mid = T0 + Math.floor(size / 2) * 30
  const deepCursor = 1_000_000_000 + Math.floor(size * 0.01) * 100 // 1% from the oldest end
  const cases: [string, (n: number) => string][] = [
    ['newest page', () => ''],
    ['email', (n) => `&email=customer${n % emails}@example.com`],
    ['order_number', (n) => `&order_number=O-${(n * 7919) % size}`],
    ['created_at range', () => `&created_at[gte]=${mid}&created_at[lt]=${mid + 86400}`],
    ['ordered_at range', () => `&ordered_at[gte]=${mid}&ordered_at[lt]=${mid + 86400}`],
    ['deep page', () => `&ending_before=${deepCursor}`],
  ]
  const results = new Map<string, { median: number; p99: number }>()
  for (const [name, query] of cases) {
    const latencies = await timeGets(server, (n) => `/v2/orders?limit=100&${expand}${query(n)}`, REQUESTS)
    results.set(name, { median: percentile(latencies, 50), p99: percentile(latencies, 99) })
  }
  await server.close()
  return { loadSeconds, results }
}

console.log(
  `orders-list: GET /v2/orders?limit=100 with all nine expansions, ${REQUESTS} sequential requests per case, server in its own process; ${conditions(true)}`,
)
const bySize = new Map<number, Awaited<ReturnType<typeof measure>>>()
for (const size of SIZES) {
  bySize.set(size, await measure(size))
  console.log(`  loaded ${size.toLocaleString('en')} orders in ${bySize.get(size)!.loadSeconds.toFixed(0)} s`)
}
console.log(
  `${'case'.padEnd(18)}${SIZES.map((s) => `${s.toLocaleString('en')} orders: median / p99`.padStart(36)).join('')}`,
)
for (const name of bySize.get(SIZES[0]!)!.results.keys()) {
  console.log(
    `${name.padEnd(18)}${SIZES.map((s) => {
      const r = bySize.get(s)!.results.get(name)!
      return `${ms(r.median)} / ${ms(r.p99)}`.padStart(36)
    }).join('')}`,
  )
}
