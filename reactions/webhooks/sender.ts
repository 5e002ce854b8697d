import { DelayedError, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { Webhook } from 'standardwebhooks'
import { isConcurrencyError } from '../../shared/domain/errors.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import {
  evolveWebhookEndpointState,
  signingSecrets,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
  webhookEndpointStream,
} from '../../shared/domain/webhooks/endpoint.ts'
import {
  decideWebhookMessage,
  evolveWebhookMessageState,
  type WebhookMessageEvent,
  type WebhookMessageState,
  webhookIdOf,
} from '../../shared/domain/webhooks/message.ts'
import type { EventMetadata } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { keepSweeping } from '../../shared/infra/jobs/queue.ts'
import { isRedisReady, workerErrors } from '../../shared/infra/jobs/redis.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type PostOutcome, postJson } from '../../shared/infra/webhooks/outbound.ts'
import { toNewEvents } from '../../commands/execute.ts'
import type { WebhookDeliveryDoc } from '../../projectors/webhooks/delivery.ts'
import type { DeliveryQueue, QueuedDelivery } from './delivery-queue.ts'

type SenderRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'logger' | 'secrets'>

/** Messages sent at once by one worker process: each mostly waits for its receiver. */
const CONCURRENCY = 16

/** The Standard Webhooks headers of one attempt, signed with the endpoint's secret. */
/** Standard Webhooks headers, with a signature by each secret given (`v1,<new> v1,<old>` while a rotation's grace lasts). */
export function signedHeaders(secrets: readonly string[], webhookId: string, at: Date, body: string) {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(webhookId, at, body)).join(' '),
  }
}

const UNOPENED_SECRET = 'the signing secret cannot be opened: SHIPLOG_SECRET_KEY is not the key it was sealed with'

/**
 * The endpoint's signing secrets, opened; undefined when the key in use is
 * not the one they were sealed with (an operator's mistake, logged): the
 * attempt fails and the message is retried on its schedule, so a fixed key
 * delivers it.
 */
function openSecrets(rt: SenderRuntime, endpoint: WebhookEndpointState, now: number) {
  try {
    return signingSecrets(endpoint, now).map((sealed) => rt.secrets.open(sealed))
  } catch (error) {
    rt.logger.error({ err: error, endpoint: endpoint.id }, UNOPENED_SECRET)
    return undefined
  }
}

const fold = <S, E>(evolve: (s: S | undefined, e: E) => S, events: readonly E[]) =>
  events.reduce<S | undefined>(evolve, undefined)

/**
 * Makes one attempt at a pending message and records its outcome on the
 * message's stream. Returns when, in Unix ms, the next attempt is due, if
 * the message is still pending after this one.
 */
export async function attemptDelivery(rt: SenderRuntime, delivery: QueuedDelivery): Promise<number | undefined> {
  const history = await rt.eventStore.readStream(delivery.stream)
  const message = fold<WebhookMessageState, WebhookMessageEvent>(evolveWebhookMessageState, asDomainEvents(history))
  if (message?.status !== 'pending') return undefined
  const now = rt.clock.now()
  if (message.next_attempt_at !== null && message.next_attempt_at * 1000 > now.getTime()) {
    return message.next_attempt_at * 1000
  }
  const endpoint = fold<WebhookEndpointState, WebhookEndpointEvent>(
    evolveWebhookEndpointState,
    asDomainEvents(await rt.eventStore.readStream(webhookEndpointStream(delivery.accountId, message.endpoint_id))),
  )
  // A message for an endpoint since disabled or deleted fails at once; a replay can send it later.
  const closed = !endpoint || endpoint.deleted ? 'deleted' : endpoint.status === 'disabled' ? 'disabled' : undefined
  const secrets = closed ? [] : openSecrets(rt, endpoint!, toUnixSeconds(now))
  const { refused, ...outcome }: PostOutcome = closed
    ? { status_code: null, error: `the endpoint is ${closed}` }
    : !secrets
      ? { status_code: null, error: UNOPENED_SECRET }
      : await postJson(
          endpoint!.url,
          signedHeaders(secrets, webhookIdOf(message.position), now, message.body),
          message.body,
          { allowPrivate: rt.config.SHIPLOG_WEBHOOK_ALLOW_PRIVATE },
        )
  const at = toUnixSeconds(rt.clock.now())
  // A receiver refused at send (a private address the operator no longer allows, no URL) fails at once.
  if (refused) rt.logger.warn({ stream: delivery.stream, error: outcome.error }, 'webhook message refused')
  const retrySchedule = closed || refused ? [] : rt.config.SHIPLOG_WEBHOOK_RETRY_SCHEDULE
  const events = decideWebhookMessage(
    { type: 'RecordDeliveryAttempt', data: { ...outcome, at, retrySchedule } },
    message,
  )
  if (events.length === 0) return undefined
  const metadata: EventMetadata = {
    accountId: delivery.accountId,
    correlationId: `webhook_${message.position}`,
    source: 'reaction',
    recordedAt: rt.clock.nowMs(),
  }
  try {
    await rt.eventStore.append([
      { stream: delivery.stream, expected: history.length - 1, events: toNewEvents(events, metadata) },
    ])
  } catch (error) {
    // Another runner recorded an attempt meanwhile: its outcome stands.
    if (isConcurrencyError(error)) return undefined
    throw error
  }
  const next = events.reduce(evolveWebhookMessageState, message)
  return next.status === 'pending' && next.next_attempt_at !== null ? next.next_attempt_at * 1000 : undefined
}

/**
 * The worker side of webhooks: sends queued messages, each retried on the
 * retry schedule by putting its job back, delayed, under the same id. Every
 * 30 s and whenever Redis comes back, messages left pending in the log
 * (Redis restarted, or was away when they were made) are queued again.
 */
export function startWebhookSender(rt: SenderRuntime, queue: DeliveryQueue, connection: Redis) {
  const worker = new Worker<QueuedDelivery>(
    queue.name,
    async (job, token) => {
      const next = await attemptDelivery(rt, job.data)
      if (next === undefined) return
      await job.moveToDelayed(next, token)
      throw new DelayedError()
    },
    // Short locks, checked often: a message held by a worker that died is taken back within seconds.
    { connection, concurrency: CONCURRENCY, lockDuration: 5_000, stalledInterval: 2_000, maxStalledCount: 10 },
  )
  worker.on('error', workerErrors(connection, rt.logger, 'webhook sender error'))
  const sweep = async () => {
    const pending = await rt.readStore.lookupAll<WebhookDeliveryDoc>(
      collections.webhook_deliveries.name,
      'status',
      'pending',
      10_000,
    )
    for (const { key, accountId, doc } of pending) {
      const notBefore = doc.next_attempt_at === null ? undefined : doc.next_attempt_at * 1000
      if (!(await queue.enqueue({ accountId, stream: key }, notBefore))) return
    }
  }
  const stopSweeping = keepSweeping(queue, sweep, (error) => rt.logger.warn({ err: error }, 'webhook sweep failed'))
  return {
    async close() {
      stopSweeping()
      await (isRedisReady(connection) ? worker.close() : worker.close(true))
    },
  }
}
