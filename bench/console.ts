/**
 * The console's pages as a support person opens them, at 1,000,000 orders
 * (two parcels each, one in a hundred late) in the embedded store: the
 * parcels page, filtered, the delays, an order. Target: the parcels page's
 * p99 under 50 ms. The figures are the client's, from request to the last
 * byte, so the server's own time is below them; GET /healthz, measured
 * beside them, shows the client's and the loopback's share. BENCH_ORDERS
 * sets the size, BENCH_REQUESTS the sample.
 */
import { spawnSync } from 'node:child_process'
import { createUser } from '../commands/users/change-user.ts'
import { orderStream } from '../shared/domain/orders/state.ts'
import { loadConfig } from '../shared/infra/config.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import { openRuntime } from '../shared/infra/runtime.ts'
import { loadOrders, order, T0 } from './fixtures.ts'
import { benchServerProcess, conditions, ms, percentile } from './support.ts'

const SIZE = Number(process.env.BENCH_ORDERS ?? 1_000_000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500)
const PASSWORD = 'bench console password'

console.log(
  `console: ${REQUESTS} sequential GETs of each page at ${SIZE.toLocaleString('en')} orders, server in its own process; ${conditions(true)}`,
)
const server = await benchServerProcess()
const loader = await openRuntime(loadConfig({ ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }))
const account = server.accountId
const t0 = performance.now()
await loadOrders(loader.readStore, account, SIZE, Math.max(1, SIZE / 100))
// Each order's two parcels in the trackers index, as its projection writes them; one order in a hundred late.
for (let start = 0; start < SIZE; start += 5000) {
  const writes = Array.from({ length: Math.min(5000, SIZE - start) }, (_, j) => {
    const doc = order(start + j, Math.max(1, SIZE / 100))
    const late = (start + j) % 100 === 0
    return doc.fulfillments.flatMap((f) =>
      f.trackers.map((tracker) => ({
        collection: collections.trackers.name,
        key: `${orderStream(account, doc.order_number)}#${tracker.id}`,
        accountId: account,
        id: tracker.id,
        revision: 3,
        doc: {
          id: tracker.id,
          tracking_number: tracker.tracking_number,
          delivery_status_code: tracker.delivery_status_code,
          created_at: tracker.created_at,
          carrier_code: 'ups',
          delay_status: late ? 'late' : null,
          delay_check_at: null,
          delay_handled: false,
        },
        fields: {
          tracking_number: tracker.tracking_number,
          delivery_status_code: tracker.delivery_status_code,
          carrier_code: 'ups',
          delay_status: late ? 'late' : null,
          delay_open: late ? 1 : null,
        },
      })),
    )
  }).flat()
  await loader.readStore.commit(['bench-load'], writes, BigInt(start + 1))
}
await createUser(loader, { accountId: account, email: 'bench@shop.example', role: 'member', password: PASSWORD })
console.log(`  loaded ${SIZE.toLocaleString('en')} orders in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
await loader.close()
spawnSync('sync')

// Signed in as a browser would be: the sign-in form's CSRF token and cookies, then the session cookie.
const login = await fetch(`${server.url}/console/login`)
const csrfCookies = login.headers.getSetCookie().map((c) => c.split(';')[0])
const token = /name="_csrf" value="([^"]+)"/.exec(await login.text())![1]!
const signedIn = await fetch(`${server.url}/console/login`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookies.join('; ') },
  body: new URLSearchParams({ _csrf: token, email: 'bench@shop.example', password: PASSWORD }).toString(),
})
const cookie = signedIn.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ')
if (signedIn.status !== 303 || !cookie.includes('shiplog_console=')) throw new Error(`sign-in: ${signedIn.status}`)

const WARM_UP = 50
async function measure(pathOf: () => string) {
  const latencies: number[] = []
  for (let n = 0; n < REQUESTS + WARM_UP; n++) {
    const path = pathOf()
    const t = performance.now()
    const response = await fetch(`${server.url}${path}`, { headers: { cookie }, redirect: 'manual' })
    await response.arrayBuffer()
    if (response.status >= 400) throw new Error(`${path}: ${response.status}`)
    if (n >= WARM_UP) latencies.push(performance.now() - t)
  }
  return { median: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

const randomOrder = () => order(Math.floor(Math.random() * SIZE), 1)
for (const [name, pathOf] of [
  ['GET /healthz (the floor)', () => '/healthz'],
  ['parcels, active (the default)', () => '/console/parcels'],
  ['parcels, all', () => '/console/parcels?view=all'],
  ['parcels needing attention', () => '/console/parcels?view=attention'],
  ['parcels in transit, page 2', () => `/console/parcels?status=in_transit&before=${randomOrder().id}`],
  ['parcels late', () => '/console/parcels?delay=late'],
  ['search by order number', () => `/console/parcels?q=${randomOrder().order_number}`],
  ['an order', () => `/console/orders/${randomOrder().id}`],
  ['delays', () => '/console/delays'],
] as const) {
  const r = await measure(pathOf)
  console.log(`${name.padEnd(30)} median ${ms(r.median)}, p99 ${ms(r.p99)}`)
}
console.log(`target: the parcels pages' p99 < 50 ms (T0 ${new Date(T0 * 1000).toISOString().slice(0, 10)})`)
await server.close()
