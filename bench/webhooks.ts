/**
 * Webhook delivery: an endpoint subscribed to `tracker.created` on a receiver
 * in this process (loopback, answering 200 at once); 1000-tracker batches
 * from 2 clients, each tracker making one message. Prints the messages per
 * second delivered (from the first batch sent to the last message received)
 * and the lag from each event being recorded (the message's `timestamp`) to
 * its arrival, at p50 and p99.
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import { benchServerProcess, conditions, ms, percentile, postBatches } from './support.ts'

const BATCHES = Number(process.env.BENCH_BATCHES ?? 10)
const BATCH_SIZE = 1000
const CONCURRENCY = 2
const expected = BATCHES * BATCH_SIZE

const lags: number[] = []
let lastArrival = 0
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (c: Buffer) => chunks.push(c))
  request.on('end', () => {
    const arrived = Date.now()
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }
    lags.push(arrived - Date.parse(message.timestamp))
    lastArrival = performance.now()
    response.end()
  })
})
receiver.listen(0, '127.0.0.1')
await once(receiver, 'listening')
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`

const server = await benchServerProcess({ SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true' })
const created = await fetch(`${server.url}/v2/webhook_endpoints`, {
  method: 'POST',
  headers: { authorization: server.key, 'content-type': 'application/json' },
  body: JSON.stringify({ url: receiverUrl, enabled_events: ['tracker.created'] }),
})
if (created.status !== 201) throw new Error(`endpoint: ${created.status}`)
const bodies = Array.from({ length: BATCHES }, (_, b) =>
  JSON.stringify({
    trackers: Array.from({ length: BATCH_SIZE }, (_, i) => ({
      order_number: `WH-${b * BATCH_SIZE + i}`,
      tracking_number: `WH${String(b * BATCH_SIZE + i).padStart(8, '0')}`,
      carrier_code: 'colissimo',
    })),
  }),
)
console.log(
  `webhooks: ${BATCHES} batches × ${BATCH_SIZE} trackers from ${CONCURRENCY} clients, one tracker.created message each to a loopback receiver; server in its own process; ${conditions(true)}`,
)
const started = performance.now()
const cpu = server.cpuMeter()
await postBatches(server, '/v1/trackers', bodies, CONCURRENCY)
const deadline = Date.now() + 300_000
while (lags.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
const seconds = (lastArrival - started) / 1000
console.log(
  `delivered ${lags.length}/${expected} messages   ${String(Math.round(lags.length / seconds)).padStart(6)} messages/s   lag from event to delivery p50 ${ms(percentile(lags, 50))}, p99 ${ms(percentile(lags, 99))}   ${cpu.per(lags.length, 'message')}`,
)
await server.close()
receiver.close()
if (lags.length < expected) process.exit(1)
