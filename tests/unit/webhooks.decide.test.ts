import t from 'tap'
import type { DomainEvent } from '../../shared/domain/events/index.ts'
import {
  decideWebhookEndpoint,
  evolveWebhookEndpointState,
  signingSecrets,
  subscribesTo,
} from '../../shared/domain/webhooks/endpoint.ts'
import {
  decideWebhookMessage,
  evolveWebhookMessageState,
  ofMessageStream,
  webhookMessageStream,
} from '../../shared/domain/webhooks/message.ts'
import { messageEventTypes, messageOf } from '../../shared/domain/webhooks/event-messages.ts'
import { eventSchemas } from '../../shared/domain/events/index.ts'
import { specOf } from '../support/decider.ts'

const endpoint = specOf({ decide: decideWebhookEndpoint, evolve: evolveWebhookEndpointState })
const created = {
  type: 'WebhookEndpointCreated' as const,
  data: {
    endpoint_id: 7,
    url: 'https://erp.example.com/hooks',
    enabled_events: null,
    description: null,
    secret: 'whsec_a',
    at: 100,
  },
}

t.test('an endpoint is created once, with what it is given', async (t) => {
  endpoint([]).when({ type: 'CreateWebhookEndpoint', data: created.data }).thenEvents(t, [created])
  endpoint([created])
    .when({ type: 'CreateWebhookEndpoint', data: created.data })
    .thenThrows(t, { code: 'SHIPLOG_ERR_CONFLICT' })
})

t.test('an update records only what it changes, and nothing when nothing changes', async (t) => {
  endpoint([created])
    .when({ type: 'UpdateWebhookEndpoint', data: { changes: { url: created.data.url, status: 'disabled' }, at: 200 } })
    .thenEvents(t, [{ type: 'WebhookEndpointUpdated', data: { changes: { status: 'disabled' }, at: 200 } }])
  endpoint([created])
    .when({ type: 'UpdateWebhookEndpoint', data: { changes: { enabled_events: null }, at: 200 } })
    .thenEvents(t, [])
})

t.test('a deleted endpoint takes no command; a missing one is not found', async (t) => {
  const deleted = { type: 'WebhookEndpointDeleted' as const, data: { at: 300 } }
  for (const command of [
    { type: 'RotateWebhookSecret' as const, data: { secret: 'whsec_b', at: 400 } },
    { type: 'TestWebhookEndpoint' as const, data: { at: 400 } },
    { type: 'DeleteWebhookEndpoint' as const, data: { at: 400 } },
  ]) {
    endpoint([created, deleted]).when(command).thenThrows(t, { code: 'SHIPLOG_ERR_NOT_FOUND' })
    endpoint([]).when(command).thenThrows(t, { code: 'SHIPLOG_ERR_NOT_FOUND' })
  }
})

t.test('an endpoint hears the types it enabled, only while enabled, and webhook.test only when asked', async (t) => {
  const state = evolveWebhookEndpointState(undefined, created)
  t.ok(subscribesTo(state, 'order.created'), 'null enables every type')
  t.notOk(subscribesTo(state, 'webhook.test'), 'a test goes only to the endpoint tested')
  const some = { ...state, enabled_events: ['tracker.status_changed' as const] }
  t.ok(subscribesTo(some, 'tracker.status_changed'))
  t.notOk(subscribesTo(some, 'order.created'))
  t.notOk(subscribesTo({ ...state, status: 'disabled' }, 'order.created'))
  t.notOk(subscribesTo({ ...state, deleted: true }, 'order.created'))
})

const message = specOf({ decide: decideWebhookMessage, evolve: evolveWebhookMessageState })
const made = {
  type: 'WebhookMessageCreated' as const,
  data: { delivery_id: 1, endpoint_id: 7, position: '42', type: 'order.created' as const, body: '{}', at: 100 },
}
/** An attempt recorded: its number, the answer, what came of it, and when. */
const attempted = (
  attempt: number,
  status_code: number | null,
  outcome: 'succeeded' | 'retrying' | 'failed',
  next_attempt_at: number | null,
  at: number,
) => ({
  type: 'WebhookDeliveryAttempted' as const,
  data: {
    attempt,
    status_code,
    error: status_code === null || status_code < 300 ? null : `answered ${status_code}`,
    outcome,
    next_attempt_at,
    at,
  },
})
const attempt = (status_code: number | null, at: number, error: string | null = null) => ({
  type: 'RecordDeliveryAttempt' as const,
  data: { status_code, error, at, retrySchedule: [5, 300] },
})

t.test('a message stream names its endpoint and log position, read back as they were given', async (t) => {
  const stream = webhookMessageStream(3, 7, 9_007_199_254_740_993n)
  t.equal(stream, 'webhookmessage-3_7_9007199254740993')
  t.same(ofMessageStream(stream), { endpointId: 7, position: 9_007_199_254_740_993n })
})

t.test('a message is made once: made again after a crash, it records nothing', async (t) => {
  message([]).when({ type: 'CreateWebhookMessage', data: made.data }).thenEvents(t, [made])
  message([made]).when({ type: 'CreateWebhookMessage', data: made.data }).thenEvents(t, [])
})

t.test('a 2xx answer delivers; anything else waits the next delay of the schedule, then fails', async (t) => {
  message([made])
    .when(attempt(204, 110))
    .thenMatch(t, [{ data: { attempt: 1, outcome: 'succeeded', status_code: 204, next_attempt_at: null } }])
  const first = attempted(1, 500, 'retrying', 115, 110)
  message([made])
    .when(attempt(500, 110, 'answered 500'))
    .thenEvents(t, [first])
  const second = { ...first, data: { ...first.data, attempt: 2, next_attempt_at: 415, at: 115 } }
  message([made, first])
    .when(attempt(500, 115, 'answered 500'))
    .thenEvents(t, [second])
  message([made, first, second])
    .when(attempt(null, 415, 'no answer within 10 s'))
    .thenMatch(t, [{ data: { attempt: 3, outcome: 'failed', status_code: null, next_attempt_at: null } }])
})

t.test('an attempt on a message no longer pending records nothing (a second runner)', async (t) => {
  const delivered = attempted(1, 200, 'succeeded', null, 110)
  message([made, delivered]).when(attempt(200, 111)).thenEvents(t, [])
})

t.test('a replay puts a message back to pending at the start of the schedule', async (t) => {
  const failed = attempted(3, 500, 'failed', null, 500)
  const replayed = { type: 'WebhookMessageReplayed' as const, data: { job_id: 9, at: 600 } }
  message([made, failed]).when({ type: 'ReplayWebhookMessage', data: replayed.data }).thenEvents(t, [replayed])
  message([made, failed, replayed])
    .when(attempt(500, 610, 'answered 500'))
    .thenMatch(t, [{ data: { attempt: 4, outcome: 'retrying', next_attempt_at: 615 } }])
})

t.test('one message asked for again (no job) goes pending at once, waiting retry or not', async (t) => {
  const retrying = attempted(1, 503, 'retrying', 4100, 500)
  const replayed = { type: 'WebhookMessageReplayed' as const, data: { at: 600 } }
  message([made, retrying]).when({ type: 'ReplayWebhookMessage', data: replayed.data }).thenEvents(t, [replayed])
  t.match(
    [made, retrying, replayed].reduce(evolveWebhookMessageState, undefined as never),
    { status: 'pending', attempts: 1, retries: 0, next_attempt_at: null },
    'due now, with the whole schedule ahead',
  )
  message([]).when({ type: 'ReplayWebhookMessage', data: replayed.data }).thenEvents(t, [])
})

/* Which message an event becomes, given the other events its command wrote to the same stream. */
const orderCreated = { type: 'OrderCreated', data: {} } as unknown as DomainEvent
const orderUpdated = { type: 'OrderUpdated', data: {} } as unknown as DomainEvent
const fulfillmentCreated = { type: 'FulfillmentCreated', data: {} } as unknown as DomainEvent
const trackerCreated = { type: 'TrackerCreated', data: { tracker_id: 5 } } as unknown as DomainEvent
const trackerUpdated = { type: 'TrackerUpdated', data: { tracker_id: 5 } } as unknown as DomainEvent
const eventRecorded = { type: 'TrackingEventRecorded', data: { tracker_id: 5 } } as unknown as DomainEvent
const statusChanged = {
  type: 'TrackerStatusChanged',
  data: { tracker_id: 5, from: 'pending', to: 'delivered' },
} as unknown as DomainEvent

t.test('a new order tells of itself once, and of its tracker once', async (t) => {
  const append = [orderCreated, fulfillmentCreated, trackerCreated]
  t.match(messageOf(orderCreated, append), { type: 'order.created', subject: { kind: 'order' } })
  t.equal(messageOf(fulfillmentCreated, append), undefined, 'no order.updated beside order.created')
  t.match(messageOf(trackerCreated, append), { type: 'tracker.created', subject: { kind: 'tracker', trackerId: 5 } })
})

t.test('one order.updated per command, however many of its parts changed', async (t) => {
  const append = [orderUpdated, fulfillmentCreated]
  t.match(messageOf(orderUpdated, append), { type: 'order.updated' })
  t.equal(messageOf(fulfillmentCreated, append), undefined)
})

t.test('a carrier event tells event_added and status_changed, not also tracker.updated', async (t) => {
  const append = [eventRecorded, statusChanged, trackerUpdated]
  t.match(messageOf(eventRecorded, append), { type: 'tracker.event_added' })
  t.match(messageOf(statusChanged, append), {
    type: 'tracker.status_changed',
    previous: { delivery_status_code: 'pending' },
  })
  t.equal(messageOf(trackerUpdated, append), undefined)
  t.match(messageOf(trackerUpdated, [trackerUpdated]), { type: 'tracker.updated' }, 'an upsert alone is an update')
})

t.test('jobs tell how they ended; an endpoint tested tells webhook.test; the rest tells nothing', async (t) => {
  const completed = { type: 'JobCompleted', data: { at: 1 } } as DomainEvent
  const failed = { type: 'JobFailed', data: { error: 'x', at: 1 } } as DomainEvent
  const tested = { type: 'WebhookEndpointTested', data: { at: 1 } } as DomainEvent
  const started = { type: 'JobStarted', data: { at: 1 } } as DomainEvent
  t.match(messageOf(completed, [completed]), { type: 'job.completed' })
  t.match(messageOf(failed, [failed]), { type: 'job.failed' })
  t.match(messageOf(tested, [tested]), { type: 'webhook.test', subject: { kind: 'webhook_endpoint' } })
  t.equal(messageOf(started, [started]), undefined)
})

t.test('a rotated-out secret signs beside the new one until it expires; 0 stops it at once', async (t) => {
  const rotated = (previous_expires_at?: number) =>
    evolveWebhookEndpointState(evolveWebhookEndpointState(undefined, created), {
      type: 'WebhookEndpointSecretRotated',
      data: { secret: 'whsec_b', ...(previous_expires_at === undefined ? {} : { previous_expires_at }), at: 400 },
    })
  const graced = rotated(400 + 86_400)
  t.same(graced.previous_secret, { secret: 'whsec_a', expires_at: 86_800 })
  t.same(signingSecrets(graced, 500), ['whsec_b', 'whsec_a'], 'both sign during the grace period')
  t.same(signingSecrets(graced, 86_800), ['whsec_b'], 'the new one alone once it is over')
  t.same(signingSecrets(rotated(400), 400), ['whsec_b'], 'expires_in 0')
  t.same(signingSecrets(rotated(), 400), ['whsec_b'], 'a rotation recorded before grace periods existed')
})

t.test('the events index takes every event type a message may tell of, and no other', async (t) => {
  const outside = Object.keys(eventSchemas).filter((type) => !(messageEventTypes as readonly string[]).includes(type))
  const told = outside.filter((type) => {
    const event = { type, data: { tracker_id: 1, notification_id: 1, delay: null, from: 'pending' } } as never
    return messageOf(event, [event]) !== undefined
  })
  t.same(told, [], 'a type messageOf tells of is in messageEventTypes')
})
