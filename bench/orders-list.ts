/**
 * GET /v2/orders?limit=100 latency with all nine expansions, with each filter
 * and on a deep page, at 10,000 and at 1,000,000 orders of realistic size (two
 * trackers of five events each) in the embedded store, side by side.
 * Targets: p99 < 30 ms, and the 1,000,000 figure within 1.5× of the 10,000 one.
 * BENCH_ORDERS=10000,1000000 sets the sizes.
 */
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { Expansion, orderExpandPaths } from '../projectors/resources/expansion.ts'
import { renderOrder } from '../projectors/resources/render.ts'
import type { Address } from '../shared/domain/events/resources.ts'
import type { OrderDoc } from '../projectors/orders/document.ts'
import { orderStream } from '../shared/domain/orders/state.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import { loadConfig } from '../shared/infra/config.ts'
import { openRuntime } from '../shared/infra/runtime.ts'
import { benchServerProcess, conditions, ms, percentile, timeGets } from './support.ts'

const SIZES = (process.env.BENCH_ORDERS ?? '10000,1000000').split(',').map(Number)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const T0 = Date.UTC(2025, 0, 1) / 1000
/** Orders per customer e-mail, whatever the size: an e-mail filter always fills a page of 100. */
const ORDERS_PER_EMAIL = 100
const full = Expansion.full(orderExpandPaths)

const address = (id: number, city: string): Address => ({
  id,
  address1: '12 rue de la Paix',
  address2: 'Bâtiment B',
  city,
  comment: null,
  company_title: null,
  country: 'France',
  country_code: 'FR',
  first_name: 'Jo',
  last_name: 'Martin',
  name: 'Jo Martin',
  state: null,
  zip: '75002',
})

function order(i: number, emails: number): OrderDoc {
  const id = 1_000_000_000 + i * 100
  const created = T0 + i * 30
  const tracker = (k: number) => ({
    id: id + 10 + k * 20,
    uuid: randomUUID(),
    fulfillment_id: id + 2 + k,
    created_at: created,
    updated_at: created + 3600,
    shipped_at: created,
    delivered_at: null,
    first_delivery_attempted_at: null,
    custom_variables: { warehouse: 'LYS-1' },
    delivery_status_code: 'in_transit',
    displayable_expected_delivery_date: '2025-01-04',
    displayable_expected_delivery_datetime: created + 3 * 86400,
    displayable_expected_delivery_kind: 'merchant' as const,
    mute_notifications: false,
    tracking_number: `1Z${i}${k}`,
    tracking_link: `https://wwwapps.ups.com/WebTracking/track?track=yes&trackNums=1Z${i}${k}`,
    untracked_carrier_name: null,
    untracked_carrier_url: null,
    language_code: null,
    carrier: { code: 'ups', name: 'UPS' },
    carrier_service: { id: null, code: 'ups_standard', name: 'UPS Standard' },
    events: Array.from({ length: 5 }, (_, e) => ({
      id: id + 11 + k * 20 + e,
      event_type_code: e === 0 ? 'origin_scan' : 'transit',
      happened_at: created + e * 3600,
      message: 'Arrived at facility',
      raw: '{"status":"AF","location":"LYON"}',
      messages: { en: 'Arrived at facility', fr: 'Arrivé au centre' },
      address: address(id + 17 + k * 20 + e, 'Lyon'),
    })),
    notifications: [],
    line_items: [],
    claims: [],
  })
  return {
    id,
    uuid: randomUUID(),
    canceled: false,
    created_at: created,
    updated_at: created + 3600,
    ordered_at: created - 600,
    custom_variables: { channel: 'web' },
    email: `customer${i % emails}@example.com`,
    first_name: 'Jo',
    last_name: 'Martin',
    phone: '+33612345678',
    language_code: 'fr',
    merchant_id: `O-${i}`,
    mute_notifications: false,
    order_number: `O-${i}`,
    shipping_address: address(id + 1, 'Paris'),
    line_items: [],
    notifications: [
      {
        id: id + 90,
        created_at: created,
        language_code: 'fr',
        notification_type: {
          id: 1,
          slug: 'order_placed',
          name: 'Order placed',
          category: 'pre_shipment',
          description: 'Sent when the service receives an order.',
        },
        notification_payloads: [
          {
            id: id + 91,
            created_at: created,
            dispatched: false,
            status: 'built',
            error: null,
            type: 'email',
            support_cced: null,
          },
        ],
      },
    ],
    fulfillments: [0, 1].map((k) => ({
      id: id + 2 + k,
      uuid: randomUUID(),
      created_at: created,
      updated_at: created,
      custom_variables: null,
      estimated_delivery_range_start: null,
      estimated_delivery_range_end: null,
      fulfillment_number: `F-${i}-${k}`,
      merchant_id: `F-${i}-${k}`,
      status_code: 'shipped',
      line_items: [],
      shipping_address: address(id + 4 + k, 'Paris'),
      trackers: [tracker(k)],
      notifications: [],
    })),
  }
}

async function measure(size: number) {
  const server = await benchServerProcess()
  // The documents go straight into the server's read store, as its orders projection would write them.
  const loader = await openRuntime(loadConfig({ ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }))
  const { readStore } = loader
  const account = server.accountId
  const emails = Math.max(1, Math.floor(size / ORDERS_PER_EMAIL))
  const t0 = performance.now()
  for (let start = 0; start < size; start += 5000) {
    const writes = Array.from({ length: Math.min(5000, size - start) }, (_, j) => {
      const doc = order(start + j, emails)
      return {
        collection: collections.orders.name,
        key: orderStream(account, doc.order_number),
        accountId: account,
        id: doc.id,
        revision: 5,
        doc,
        fields: {
          email: doc.email,
          order_number: doc.order_number,
          created_at: doc.created_at,
          ordered_at: doc.ordered_at,
        },
        views: { full: JSON.stringify(renderOrder(doc, full)) }, // as the projector renders it when idle
      }
    })
    await readStore.commit(['bench-load'], writes, BigInt(start + 1))
  }
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
