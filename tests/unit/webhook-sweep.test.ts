import t from 'tap'
import { evolveWebhookDelivery, type WebhookDeliveryDoc } from '../../projectors/webhooks/delivery.ts'
import { sweptDeliveries } from '../../reactions/webhooks/sender.ts'
import type { WebhookMessageEvent } from '../../shared/domain/webhooks/message.ts'
import { webhookMessageStream } from '../../shared/domain/webhooks/message.ts'

/*
 * What the webhook sweep queues again for the messages the delivery log shows
 * pending: a message never tried goes back into its batch job, under that
 * job's id, whatever its age; anything else goes alone, when due.
 */

const NOW = 10_000
const made = (position: number, batch?: number, at = NOW - 3600): WebhookMessageEvent => ({
  type: 'WebhookMessageCreated',
  data: {
    delivery_id: position,
    endpoint_id: 7,
    position: String(position),
    type: 'order.created',
    body: '{}',
    batch: batch === undefined ? undefined : String(batch),
    at,
  },
})
const retrying: WebhookMessageEvent = {
  type: 'WebhookDeliveryAttempted',
  data: {
    attempt: 1,
    status_code: 500,
    error: 'answered 500',
    outcome: 'retrying',
    next_attempt_at: NOW + 60,
    at: NOW,
  },
}
const replayed: WebhookMessageEvent = { type: 'WebhookMessageReplayed', data: { job_id: 3, at: NOW } }

/** The delivery log's pending lines, each folded from the events given. */
const given = (...messages: WebhookMessageEvent[][]) =>
  messages.map((events) => {
    const doc = events.reduce<WebhookDeliveryDoc | undefined>(evolveWebhookDelivery, undefined)!
    return { key: webhookMessageStream(1, 7, doc.position), accountId: 1, doc }
  })
const stream = (position: number) => webhookMessageStream(1, 7, BigInt(position))

t.test(
  'messages never tried go back into their batch jobs, in log order, named by each job’s first message',
  async (t) => {
    const pending = given([made(12, 10)], [made(11, 10)], [made(21, 21)], [made(22, 21)])
    t.same(sweptDeliveries(pending, NOW), [
      { delivery: { accountId: 1, endpointId: 7, streams: [stream(10), stream(11), stream(12)] } },
      { delivery: { accountId: 1, endpointId: 7, streams: [stream(21), stream(22)] } },
    ])
  },
)

t.test('a message never tried is queued into its batch however fresh it is', async (t) => {
  t.same(sweptDeliveries(given([made(5, 5, NOW - 1)]), NOW), [
    { delivery: { accountId: 1, endpointId: 7, streams: [stream(5)] } },
  ])
})

t.test('a message once tried, or replayed, is its own job: queued alone, when due', async (t) => {
  t.same(sweptDeliveries(given([made(5, 5), retrying], [made(6, 5), replayed]), NOW), [
    { delivery: { accountId: 1, stream: stream(5) }, notBefore: (NOW + 60) * 1000 },
    { delivery: { accountId: 1, stream: stream(6) }, notBefore: undefined },
  ])
})

t.test(
  'a message recorded without its batch is left to that batch for a sweep’s round, then queued alone',
  async (t) => {
    t.same(sweptDeliveries(given([made(5, undefined, NOW - 10)]), NOW), [], 'ten seconds old: left')
    t.same(sweptDeliveries(given([made(5, undefined, NOW - 31)]), NOW), [
      { delivery: { accountId: 1, stream: stream(5) }, notBefore: undefined },
    ])
  },
)
