/**
 * POST /v1/delivery_date_estimation over HTTP with 20 configured carrier
 * services and a full request. Target: median under 5 ms.
 */
import { benchServer, conditions, ms, percentile } from './support.ts'

const SERVICES = 20
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
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
  const result = (await response.json()) as { delivery_date_estimations: unknown[] }
  if (result.delivery_date_estimations.length !== SERVICES) throw new Error('missing estimations')
  if (n >= 50) latencies.push(performance.now() - t)
}
console.log(`estimation: ${SERVICES} services, ${REQUESTS} sequential requests over HTTP; ${conditions()}`)
console.log(`median ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`)
await server.close()
