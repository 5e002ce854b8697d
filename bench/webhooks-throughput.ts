/**
 * Webhook delivery: an endpoint subscribed to `tracker.created` on a receiver
 * in this process (loopback, answering 200 at once); 1000-tracker batches
 * from 2 clients, each tracker making one message, after 10 batches
 * delivered to warm up. Prints the messages per
 * second delivered (from the first batch sent to the last message received),
 * the median of three rounds of new trackers (a round lasts under a second,
 * and one can meet a pause of the machine's, as the floor's can), and the lag from each event being recorded (the message's `timestamp`) to
 * its arrival, at p50 and p99; beside it, the floor in the same run: a raw
 * keep-alive HTTP loop posting as many messages of the same size to the same
 * receiver, with the sender's concurrency, three times before and three after
 * the service (the ratio is to the mean of the two medians: the machine's
 * speed drifts within a run).
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import { benchServerProcess, conditions, medianOfRounds, ms, percentile, postBatches } from './support.ts'

/** Messages a sender process has in flight at once (reactions/webhooks/sender.ts). */
const SENDER_CONCURRENCY = 16

const BATCHES = Number(process.env.BENCH_BATCHES ?? 5)
/** Timed rounds of BATCHES batches each; the rate is their median. */
const ROUNDS = 3
/**
 * Batches delivered before the timed ones, so that V8 has optimised the
 * sender's path as it has the floor's: after 3, its compiler threads still
 * took a fifth of the server's CPU in the timed part.
 */
const WARMUP = 10
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
const bodies = Array.from({ length: WARMUP + ROUNDS * BATCHES }, (_, b) =>
  JSON.stringify({
    trackers: Array.from({ length: BATCH_SIZE }, (_, i) => ({
      order_number: `WH-${b * BATCH_SIZE + i}`,
      tracking_number: `WH${String(b * BATCH_SIZE + i).padStart(8, '0')}`,
      carrier_code: 'colissimo',
    })),
  }),
)
console.log(
  `webhooks: ${ROUNDS} rounds of ${BATCHES} batches × ${BATCH_SIZE} trackers from ${CONCURRENCY} clients, one tracker.created message each to a loopback receiver; server in its own process; ${conditions(true)}`,
)
// The floor: the same number of messages of a realistic size, posted by a bare keep-alive loop.
const sample = JSON.stringify({
  type: 'tracker.created',
  timestamp: new Date().toISOString(),
  data: { object: { pad: 'x'.repeat(1500) } },
})
const rawLoop = () =>
  postBatches(
    { url: receiverUrl.replace('/hooks', ''), key: '' },
    '/hooks',
    Array(expected).fill(sample),
    SENDER_CONCURRENCY,
    200,
  )
/** The loop's rate, the median of three: a loop lasts under a second. */
const floorRate = async () => (await medianOfRounds(3, rawLoop, (r) => expected / r.seconds)).rate
await rawLoop()
const floorBefore = await floorRate()

const delivered = async (count: number) => {
  const deadline = Date.now() + 300_000
  while (lags.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}
lags.length = 0
await postBatches(server, '/v1/trackers', bodies.slice(0, WARMUP), CONCURRENCY)
await delivered(WARMUP * BATCH_SIZE)
lags.length = 0

const cpu = server.cpuMeter()
const { rate, rates, runs } = await medianOfRounds(
  ROUNDS,
  async (round) => {
    const roundLags = lags.length
    const started = performance.now()
    const from = WARMUP + round * BATCHES
    await postBatches(server, '/v1/trackers', bodies.slice(from, from + BATCHES), CONCURRENCY)
    await delivered(roundLags + expected)
    const arrived = lags.length - roundLags
    return { rate: arrived / ((lastArrival - started) / 1000), count: Math.min(arrived, expected) }
  },
  (r) => r.rate,
)
const count = runs.reduce((sum, r) => sum + r.count, 0)
const roundRates = rates.map((r) => Math.round(r)).join(', ')
const delivery = `${count}/${ROUNDS * expected} messages   ${String(Math.round(rate)).padStart(6)} messages/s (median of ${roundRates})   lag from event to delivery p50 ${ms(percentile(lags, 50))}, p99 ${ms(percentile(lags, 99))}   ${cpu.per(count, 'message', 'µs')}`
await server.close()
const floorAfter = await floorRate()
const floor = (floorBefore + floorAfter) / 2
console.log(`(a) raw keep-alive loop to the receiver   ${String(Math.round(floorBefore)).padStart(6)} messages/s`)
console.log(`(a) the same, after (b)                   ${String(Math.round(floorAfter)).padStart(6)} messages/s`)
console.log(`(b) delivered ${delivery}`)
console.log(`(b) against the mean of (a): ${((100 * rate) / floor).toFixed(1)} % (target ≥ 30 %)`)
receiver.close()
if (count < ROUNDS * expected) process.exit(1)
