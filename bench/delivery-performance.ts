/**
 * GET /v2/analytics/delivery_performance over a year of 1,000,000 delivered
 * parcels (20 carrier services, 10 destination countries, every day), as the
 * delivery history read model holds them: a year and a quarter, grouped four
 * ways, and the CSV. Target: under 200 ms. The first request of a process
 * reads the weeks it then keeps: it is printed apart. BENCH_PARCELS sets the volume.
 */
import { addDays } from '../shared/domain/delivery/calendar.ts'
import type { Contribution } from '../shared/domain/delivery/sums.ts'
import { weekSumsOf } from '../projectors/deliveries/delivery-stats.ts'
import { seeded } from './history.ts'
import { benchServer, conditions, ms, percentile } from './support.ts'

const PARCELS = Number(process.env.BENCH_PARCELS ?? 1_000_000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30)
const SERVICES = 20
const DESTINATIONS = ['FR', 'DE', 'BE', 'ES', 'IT', 'NL', 'PT', 'AT', 'PL', 'GB']
const server = await benchServer()
const random = seeded(7)

// The weeks' sums the projection would write for these parcels, made directly: a parcel is one contribution.
const t0 = performance.now()
const contributions: Contribution[] = []
for (let i = 0; i < PARCELS; i++) {
  const ended_on = addDays('2026-01-01', Math.floor(random() * 365))
  const days = 1 + Math.floor(random() * random() * 6)
  contributions.push({
    carrier_code: `carrier${i % 5}`,
    service_code: `service${i % SERVICES}`,
    origin: 'FR',
    destination: DESTINATIONS[Math.floor(random() * DESTINATIONS.length)]!,
    ended_on,
    shipped_on: addDays(ended_on, -days - (days > 4 ? 2 : 0)),
    prefix: String(10 + Math.floor(random() * 80)),
    delivered: true,
    on_time: random() < 0.9,
    promise_gap: null,
    failed_attempt: random() < 0.04,
    exception: random() < 0.01,
    returned: false,
  })
  // Late parcels two days after their promise, the others on the day: the draws stay as they were.
  const made = contributions.at(-1)!
  made.promise_gap = made.on_time ? 0 : 2
}
const writes = weekSumsOf(server.accountId, contributions)
for (let i = 0; i < writes.length; i += 5000)
  await server.runtime.readStore.commit(['bench-load'], writes.slice(i, i + 5000), 1n)
const sums = writes.filter((w) => (w.doc as { kind: string }).kind === 'bucket').length
console.log(
  `delivery-performance: ${PARCELS.toLocaleString('en')} delivered parcels of 2026 in ${sums.toLocaleString('en')} weeks' sums (loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s), ${REQUESTS} sequential requests a case over HTTP; ${conditions()}`,
)

for (const [name, query] of [
  ['a year by carrier and week', 'from=2026-01-01&to=2026-12-31&group_by[]=carrier&group_by[]=week&limit=1000'],
  [
    'a year by service and country',
    'from=2026-01-01&to=2026-12-31&group_by[]=service&group_by[]=destination_country&limit=1000',
  ],
  ['a quarter, all together', 'from=2026-10-01&to=2026-12-31'],
  ['a year as CSV, by week', 'from=2026-01-01&to=2026-12-31&group_by=week', '.csv'],
] as const) {
  const latencies: number[] = []
  let first = 0
  for (let n = 0; n < REQUESTS + 3; n++) {
    const t = performance.now()
    const response = await fetch(
      `${server.url}/v2/analytics/delivery_performance${name.endsWith('CSV, by week') ? '.csv' : ''}?${query}`,
      {
        headers: { authorization: `Bearer ${server.key}` },
      },
    )
    const body = await response.text()
    if (response.status !== 200 || body.length < 50)
      throw new Error(`${name}: ${response.status} ${body.slice(0, 200)}`)
    if (n === 0) first = performance.now() - t
    if (n >= 3) latencies.push(performance.now() - t)
  }
  console.log(
    `${name.padEnd(32)} median ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))} (target < 200 ms); first ${ms(first)}`,
  )
}
await server.close()
