import t, { type Test } from 'tap'
import { createDeliveryQueue } from '../../reactions/webhooks/delivery-queue.ts'
import { startWebhookReaction } from '../../reactions/webhooks/reaction.ts'
import { deliverBatch, sweepMessages } from '../../reactions/webhooks/sender.ts'
import { type Clock, fixedClock } from '../../shared/infra/clock.ts'
import { connectRedis } from '../../shared/infra/jobs/redis.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { startTestServer } from '../support/server.ts'
import { until } from '../support/progress.ts'

/**
 * The service without its worker role, and the webhook reaction queueing into
 * a delivery queue nothing takes jobs from, with an endpoint hearing of
 * `order.created` on `receiver`: a test runs the batches itself.
 */
async function serviceQueueingBatches(t: Test, receiver: Receiver, clock?: Clock) {
  const server = await startTestServer(t, {
    clock,
    roles: ['command', 'query', 'projector'],
    env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true' },
  })
  const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', server.runtime.logger, 'batches-test')
  t.teardown(() => redis.disconnect())
  const queue = createDeliveryQueue(server.runtime.config.QUEUE_NAME, redis)
  t.teardown(async () => {
    await queue.bull.obliterate({ force: true })
    await queue.close()
  })
  const reaction = startWebhookReaction(server.runtime, queue)
  t.teardown(() => reaction.stop())
  const endpoint = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: receiver.url, enabled_events: ['order.created'] },
  })
  t.equal(endpoint.status, 201)
  return { server, queue, endpointId: endpoint.body.id as number }
}

/*
 * The sweep meets messages still waiting in their batch job, as a slow
 * endpoint's backlog waits, long after they were made: queued alone as well,
 * each could be posted twice and ahead of the messages before it. They go
 * back into their batch, under its id, which BullMQ holds once; when Redis
 * has lost the job, the sweep makes it again, in log order.
 */
t.test(
  'a sweep leaves a waiting batch as it is, and makes it again, in log order, once Redis has lost it',
  async (t) => {
    const receiver = await startReceiver(t)
    const clock = fixedClock(new Date())
    const { server, queue, endpointId } = await serviceQueueingBatches(t, receiver, clock)
    const posted = await server.request('POST', '/v1/trackers', {
      body: { trackers: ['S-1', 'S-2', 'S-3'].map((n) => ({ order_number: n, tracking_number: `TN-${n}` })) },
    })
    t.equal(posted.status, 201)
    const deliveries = async () =>
      (await server.request('GET', `/v2/webhook_endpoints/${endpointId}/deliveries`)).body as {
        data: { position: string; status: string }[]
      }
    await until(deliveries, (log) => log.data.length === 3)
    const jobs = async () =>
      (await queue.bull.getJobs(['waiting', 'delayed', 'active'])).map((j) => ({ id: j.id, data: j.data }))
    const [batch, ...others] = await jobs()
    t.same(others, [], 'the reaction queued one batch')
    t.match(batch, { id: /^batch_webhookmessage-/, data: { streams: Array } })

    clock.set(new Date(clock.nowMs() + 3_600_000))
    await sweepMessages(server.runtime, queue)
    t.same(await jobs(), [batch], 'an hour later, the sweep adds nothing beside the batch still waiting')

    await queue.bull.obliterate({ force: true })
    await sweepMessages(server.runtime, queue)
    const again = await jobs()
    t.same(again, [batch], 'Redis lost it: the sweep makes the same batch again, under its id, in log order')

    const { accountId, streams } = again[0]!.data as { accountId: number; streams: string[] }
    await deliverBatch(server.runtime, accountId, streams)
    t.same(
      receiver.received.map((r) => r.json.data.object.order_number),
      ['S-1', 'S-2', 'S-3'],
      'each message posted once, in log order',
    )
  },
)

/*
 * A batch records its attempts as it goes. When the log refuses a record, the
 * batch stops sending, fails, and is run again: the messages whose attempts
 * were recorded are not sent again; those that were not go once more, under
 * the same webhook-id.
 */
t.test('attempts the log refuses fail their batch, and its run again sends only what was not recorded', async (t) => {
  const receiver = await startReceiver(t)
  receiver.delayMs = 600
  const { server, queue, endpointId } = await serviceQueueingBatches(t, receiver)
  const count = 80
  await server.request('POST', '/v1/trackers', {
    body: {
      trackers: Array.from({ length: count }, (_, i) => ({ order_number: `F-${i}`, tracking_number: `TN-F${i}` })),
    },
  })
  await until(
    async () => (await server.request('GET', `/v2/webhook_endpoints/${endpointId}/deliveries?limit=100`)).body,
    (log: { data: unknown[] }) => log.data.length === count,
  )
  const [batch] = await queue.bull.getJobs(['waiting'])
  const { accountId, streams } = batch!.data as { accountId: number; streams: string[] }
  t.equal(streams.length, count, 'one batch job holds them all')

  // Given a log that refuses the batch's first record (made a second after the first answers)
  const { eventStore } = server.runtime
  let refusals = 1
  const refusingStore: typeof eventStore = Object.create(eventStore)
  refusingStore.append = (appends) =>
    refusals-- > 0 ? Promise.reject(new Error('disk full')) : eventStore.append(appends)
  const refusing = { ...server.runtime, eventStore: refusingStore }
  // When the batch runs, it fails, having stopped sending
  await t.rejects(deliverBatch(refusing, accountId, streams), /disk full/)
  const firstRun = receiver.received.length
  t.ok(firstRun < count, `it stopped sending: ${firstRun} of ${count} went out`)
  // Then, run again, it sends the rest and those whose attempts were not recorded
  await deliverBatch(server.runtime, accountId, streams)
  const ids = receiver.received.map((r) => r.headers['webhook-id'])
  t.equal(new Set(ids).size, count, 'every message arrived')
  t.ok(ids.length > count, 'the unrecorded ones came again, under the same webhook-id')
  t.ok(ids.length < count + firstRun, 'but not those already recorded')
})
