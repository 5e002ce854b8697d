import t from 'tap'
import { crashableService, serviceEnvironment } from '../support/process.ts'
import { queueDrained, reactionPassed } from '../support/progress.ts'
import { startReceiver } from '../support/receiver.ts'

/*
 * No message lost when the service is killed between an event and its
 * delivery: the events are stored by a service without its worker role (so
 * nothing is sent), it is killed with SIGKILL, and the restarted service
 * delivers them; a message that was retrying when killed is delivered after
 * the restart under the same webhook-id.
 */
t.test('messages made before a kill -9 are delivered after the restart, once each, same webhook-id', async (t) => {
  const receiver = await startReceiver(t)
  const env = await serviceEnvironment(t, {
    SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true',
    SHIPLOG_WEBHOOK_RETRY_SCHEDULE: '1',
  })
  const service = await crashableService(t, env)
  const endpoint = (await (
    await service.call('/v2/webhook_endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, enabled_events: ['order.created'] }),
    })
  ).json()) as { object: string }
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
