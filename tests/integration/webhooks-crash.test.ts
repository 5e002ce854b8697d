import t, { type Test } from 'tap'
import type { WebhookDeliveryDoc } from '../../projectors/webhooks/delivery.ts'
import { attemptDelivery, deliverBatch } from '../../reactions/webhooks/sender.ts'
import { fixedClock } from '../../shared/infra/clock.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { openRuntime } from '../../shared/infra/runtime.ts'
import { crashableService, serviceEnvironment } from '../support/process.ts'
import { queueDrained, reactionPassed, until } from '../support/progress.ts'
import { startReceiver } from '../support/receiver.ts'

/**
 * A receiver, and the service without its worker role (see crashableService)
 * with an endpoint sending it `order.created`, retried on `retrySchedule`.
 */
async function serviceWithEndpoint(t: Test, retrySchedule: string) {
  const receiver = await startReceiver(t)
  const env = await serviceEnvironment(t, {
    SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true',
    SHIPLOG_WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  })
  const service = await crashableService(t, env)
  const endpoint = (await (
    await service.call('/v2/webhook_endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, enabled_events: ['order.created'] }),
    })
  ).json()) as { object: string; id: number }
  return { receiver, env, service, endpoint }
}

/*
 * No message lost when the service is killed between an event and its
 * delivery: the events are stored by a service without its worker role (so
 * nothing is sent), it is killed with SIGKILL, and the restarted service
 * delivers them; a message that was retrying when killed is delivered after
 * the restart under the same webhook-id.
 */
t.test('messages made before a kill -9 are delivered after the restart, once each, same webhook-id', async (t) => {
  const { receiver, service, endpoint } = await serviceWithEndpoint(t, '1')
  const trackers = Array.from({ length: 50 }, (_, i) => ({ order_number: `K-${i}`, tracking_number: `TN-K${i}` }))
  const posted = await service.call('/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers }),
  })
  t.equal(posted.status, 201)
  await service.kill()
  t.equal(receiver.received.length, 0, 'nothing was sent before the kill')

  receiver.answers.push(500)
  await service.crashAndRestart()
  const received = await receiver.waitFor(51)
  const ids = received.map((r) => r.headers['webhook-id'])
  t.equal(new Set(ids).size, 50, 'every order.created arrived; the one answered 500 came again')
  const retried = ids.find((id, i) => ids.indexOf(id) !== i)
  t.equal(retried, ids[0], 'the retry carries the first attempt’s webhook-id')

  // A message waiting for its retry when the service dies is sent after the restart.
  receiver.answers.push(500)
  const before = receiver.received.length
  const written = await service.call('/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers: [{ order_number: 'L-1', tracking_number: 'TN-L1' }] }),
  })
  await receiver.waitFor(before + 1)
  await service.crashAndRestart()
  const after = await receiver.waitFor(before + 2)
  t.equal(after[before + 1]!.headers['webhook-id'], after[before]!.headers['webhook-id'])
  t.equal(after[before + 1]!.json.data.object.order_number, 'L-1')
  await reactionPassed(service, 'webhooks', written.headers.get('x-shiplog-position')!)
  await queueDrained(service, 'webhooks')
  t.equal(receiver.received.length, before + 2, 'and nothing more')
  t.equal(endpoint.object, 'webhook_endpoint')
})

/*
 * A batch job run again (its worker killed, the reaction replaying its
 * events) meets a message its first try left retrying, and due: the retry is
 * its own job's, so the batch leaves it and only that job posts it.
 */
t.test('a batch run again leaves a message already tried to its own job: one post, not two', async (t) => {
  const { receiver, env, service, endpoint } = await serviceWithEndpoint(t, '3600')
  await service.call('/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers: [{ order_number: 'R-1', tracking_number: 'TN-R1' }] }),
  })
  receiver.answers.push(500)
  await service.crashAndRestart()
  await until(
    async () =>
      (await (await service.call(`/v2/webhook_endpoints/${endpoint.id}/deliveries`)).json()) as {
        data: { attempts: number }[]
      },
    (log) => log.data[0]?.attempts === 1,
  )
  await service.kill()
  t.equal(receiver.received.length, 1, 'the first try, answered 500, is recorded; its retry is an hour away')

  // The service as it runs again an hour later, its retry due.
  const clock = fixedClock(new Date())
  const rt = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { clock })
  t.teardown(() => rt.close())
  const [message] = await rt.readStore.lookupAll<WebhookDeliveryDoc>(
    collections.webhook_deliveries.name,
    'status',
    'pending',
    10,
  )
  const { accountId, key: stream, doc } = message!
  clock.set(new Date(doc.next_attempt_at! * 1000))
  const again = await deliverBatch(rt, accountId, [stream])
  t.equal(receiver.received.length, 1, 'the batch run again posts nothing')
  t.equal(again.get(stream), clock.nowMs(), 'it hands the message back, due now')
  t.equal(await attemptDelivery(rt, { accountId, stream }), undefined, 'its own job delivers it')
  t.equal(receiver.received.length, 2)
  t.equal(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id'])
})
