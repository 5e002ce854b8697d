/**
 * POST /v1/delivery_date_estimation over HTTP with 20 configured carrier
 * services, 100,000 delivered parcels of history on their lanes (the last 90
 * days, as the delivery history read model holds them), and a full request.
 * Target: median under 5 ms. BENCH_HISTORY sets the parcels of history.
 */
import { addDays, localDateTime } from '../shared/domain/delivery/calendar.ts'
import { bucketWritesOf, generateHistory, type Lane, service } from './history.ts'
import { benchServer, conditions, ms, percentile } from './support.ts'

const SERVICES = 20
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
const HISTORY = Number(process.env.BENCH_HISTORY ?? 100_000)
const server = await benchServer()
let position = '0'
for (let i = 0; i < SERVICES; i++) {
  const response = await fetch(`${server.url}/v2/carrier_services/carrier${i % 5}/service${i}`, {
    method: 'PUT',
    headers: { authorization: server.key, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `Service ${i}`,
      transit_days: [
        { origin: 'FR', destination: 'FR', days: 1 + (i % 4) },
        { origin: 'FR', destination: null, days: 3 + (i % 3) },
        { origin: null, destination: null, days: 6 },
      ],
      cutoff_time: `1${i % 8}:00`,
      time_zone: i % 2 ? 'Europe/Paris' : 'America/New_York',
      pickup_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
      delivery_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'],
    }),
  })
  position = response.headers.get('x-shiplog-position')!
}
// The history: each service's parcels from France to Germany and France, over the last 90 days.
const today = localDateTime('UTC', new Date()).date
const lanes = Array.from({ length: SERVICES }, (_, i): Lane[] => [
  {
    service: service(`carrier${i % 5}`, `service${i}`, 3),
    origin: 'FR',
    destination: 'DE',
    shape: [
      [2 + (i % 3), 60],
      [3 + (i % 3), 30],
      [6, 10],
    ],
  },
  {
    service: service(`carrier${i % 5}`, `service${i}`, 2),
    origin: 'FR',
    destination: 'FR',
    shape: [
      [1 + (i % 2), 70],
      [3, 30],
    ],
  },
]).flat()
const from = addDays(today, -89)
const workingDays = Array.from({ length: 90 }, (_, d) => addDays(from, d)).filter(
  (d) => !/Sat|Sun/.test(new Date(d).toUTCString()),
).length
const parcels = generateHistory(lanes, from, today, Math.ceil(HISTORY / workingDays))
await server.runtime.readStore.commit(['bench-load'], bucketWritesOf(server.accountId, parcels), 1n)
const body = JSON.stringify({
  delivery_date_estimation: {
    origin: { country_code: 'FR', city: 'Lyon' },
    destination: { country_code: 'DE', city: 'Berlin' },
  },
})
const latencies: number[] = []
for (let n = 0; n < REQUESTS + 50; n++) {
  const t = performance.now()
  const response = await fetch(`${server.url}/v1/delivery_date_estimation`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${server.key}`,
      'content-type': 'application/json',
      'x-shiplog-position': position,
    },
    body,
  })
  const result = (await response.json()) as { delivery_date_estimations: { basis: string }[] }
  if (result.delivery_date_estimations.length !== SERVICES) throw new Error('missing estimations')
  if (HISTORY > 0 && result.delivery_date_estimations.some((e) => e.basis !== 'history'))
    throw new Error('not from the history')
  if (n >= 50) latencies.push(performance.now() - t)
}
console.log(
  `estimation: ${SERVICES} services, ${parcels.length.toLocaleString('en')} delivered parcels of history, ${REQUESTS} sequential requests over HTTP; ${conditions()}`,
)
console.log(`median ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`)
await server.close()
