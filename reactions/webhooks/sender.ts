import { DelayedError, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
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
  ofMessageStream,
  webhookIdOf,
  webhookMessageStream,
} from '../../shared/domain/webhooks/message.ts'
import type { AppendRequest, EventMetadata } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { keepSweeping } from '../../shared/infra/jobs/queue.ts'
import { isRedisReady, workerErrors } from '../../shared/infra/jobs/redis.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type WebhookSigner, webhookSigner } from '../../shared/infra/webhooks/signing.ts'
import {
  type PostOutcome,
  postJson,
  type ReceiverConnections,
  receiverConnections,
} from '../../shared/infra/webhooks/outbound.ts'
import { toNewEvents } from '../../commands/execute.ts'
import type { WebhookDeliveryDoc } from '../../projectors/webhooks/delivery.ts'
import type { DeliveryBatch, DeliveryQueue, QueuedDelivery } from './delivery-queue.ts'
import { EndpointTurns, HELD_PER_ENDPOINT } from './endpoint-turns.ts'

type SenderRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'logger' | 'secrets'>

/**
 * Jobs a worker process holds at once: each mostly waits, for its receiver
 * or for its endpoint's turn. Four times what a slow endpoint may hold
 * (HELD_PER_ENDPOINT), so that receivers that have become slow leave room
 * for the others.
 */
const CONCURRENCY = 4 * HELD_PER_ENDPOINT

/** Standard Webhooks headers, with a signature by each signer given (`v1,<new> v1,<old>` while a rotation's grace lasts). */
export function signedHeaders(signers: readonly WebhookSigner[], webhookId: string, at: Date, body: string) {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(toUnixSeconds(at)),
    'webhook-signature': signers.map((sign) => sign(webhookId, at, body)).join(' '),
  }
}

const UNOPENED_SECRET = 'the signing secret cannot be opened: SHIPLOG_SECRET_KEY is not the key it was sealed with'

/**
 * The endpoint's signers, its secrets opened (once a batch); undefined when
 * the key in use is not the one they were sealed with (an operator's
 * mistake, logged): the attempt fails and the message is retried on its
 * schedule, so a fixed key delivers it.
 */
function signersOf(rt: SenderRuntime, endpoint: WebhookEndpointState, now: number) {
  try {
    return signingSecrets(endpoint, now).map((sealed) => webhookSigner(rt.secrets.open(sealed)))
  } catch (error) {
    rt.logger.error({ err: error, endpoint: endpoint.id }, UNOPENED_SECRET)
    return undefined
  }
}

const fold = <S, E>(evolve: (s: S | undefined, e: E) => S, events: readonly E[]) =>
  events.reduce<S | undefined>(evolve, undefined)

/** A message's attempt is due now: pending, and its next attempt not in the future. */
const dueAt = (message: WebhookMessageState | undefined, now: number) =>
  message?.status !== 'pending'
    ? undefined
    : message.next_attempt_at !== null && message.next_attempt_at * 1000 > now
      ? { due: false as const, at: message.next_attempt_at * 1000 }
      : { due: true as const }

/**
 * Posts one pending message to its endpoint and decides what the attempt
 * records (nothing once the message is no longer pending): a message for an
 * endpoint since disabled or deleted fails at once, and a replay can send it later.
 */
async function attempt(
  rt: SenderRuntime,
  message: WebhookMessageState,
  to: { endpoint: WebhookEndpointState | undefined; signers: WebhookSigner[] | undefined },
  stream: string,
) {
  const { endpoint, signers } = to
  const now = rt.clock.now()
  const closed = !endpoint || endpoint.deleted ? 'deleted' : endpoint.status === 'disabled' ? 'disabled' : undefined
  const { refused, ...outcome }: PostOutcome = closed
    ? { status_code: null, error: `the endpoint is ${closed}` }
    : !signers
      ? { status_code: null, error: UNOPENED_SECRET }
      : await postJson(
          endpoint!.url,
          signedHeaders(signers, webhookIdOf(message.position), now, message.body),
          message.body,
          {
            allowPrivate: rt.config.SHIPLOG_WEBHOOK_ALLOW_PRIVATE,
            connections: connectionsOf(endpoint!.id, rt.config.SHIPLOG_WEBHOOK_ALLOW_PRIVATE),
          },
        )
  const at = toUnixSeconds(rt.clock.now())
  // A receiver refused at send (a private address the operator no longer allows, no URL) fails at once.
  if (refused) rt.logger.warn({ stream, error: outcome.error }, 'webhook message refused')
  const retrySchedule = closed || refused ? [] : rt.config.SHIPLOG_WEBHOOK_RETRY_SCHEDULE
  return decideWebhookMessage({ type: 'RecordDeliveryAttempt', data: { ...outcome, at, retrySchedule } }, message)
}

/** When a message still pending after an attempt is next due (Unix ms). */
const nextAttempt = (message: WebhookMessageState, events: readonly WebhookMessageEvent[]) => {
  const next = events.reduce(evolveWebhookMessageState, message)
  return next.status === 'pending' && next.next_attempt_at !== null ? next.next_attempt_at * 1000 : undefined
}

const attemptMetadata = (rt: SenderRuntime, accountId: number, message: WebhookMessageState): EventMetadata => ({
  accountId,
  correlationId: `webhook_${message.position}`,
  source: 'reaction',
  recordedAt: rt.clock.nowMs(),
})

/**
 * Records attempts, each at the revision its message was read at, in one
 * append; one met by a concurrent attempt (another runner) leaves that
 * runner's outcome standing, and the others are recorded one by one.
 */
async function recordAttempts(rt: SenderRuntime, appends: AppendRequest[]) {
  if (appends.length === 0) return new Set<string>()
  try {
    await rt.eventStore.append(appends)
    return new Set(appends.map((a) => a.stream))
  } catch (error) {
    if (!isConcurrencyError(error)) throw error
  }
  const recorded = new Set<string>()
  for (const append of appends) {
    try {
      await rt.eventStore.append([append])
      recorded.add(append.stream)
    } catch (error) {
      if (!isConcurrencyError(error)) throw error
    }
  }
  return recorded
}

/**
 * Makes one attempt at a pending message and records its outcome on the
 * message's stream. Returns when, in Unix ms, the next attempt is due, if
 * the message is still pending after this one.
 */
export async function attemptDelivery(rt: SenderRuntime, delivery: { accountId: number; stream: string }) {
  const next = await deliverBatch(rt, delivery.accountId, [delivery.stream], 'any')
  return next.get(delivery.stream)
}

/** How long a message recorded without its batch is left to the batch job that holds it before a sweep queues it alone. */
const FRESH_SECONDS = 30

/** Messages of one batch in flight at once: each waits mostly for its receiver. */
const IN_FLIGHT = 16
/**
 * Longest an attempt waits to be recorded, in ms: what a crash can send
 * twice, and how far the delivery log trails a slow receiver. A fast one's
 * batch is recorded in one append, which costs a fraction of several.
 */
const RECORD_WITHIN_MS = 1000

/**
 * Sends a batch of messages: read together, each endpoint once, posted
 * several at a time while the messages about one subject (an order and its
 * trackers) go one after another in log order, and their attempts recorded
 * together, each within a second of being made. Returns, for each message
 * still pending, when its next attempt is due (Unix ms).
 *
 * A message tried once belongs to its own job from then on (one job per
 * message id): a batch, even one run again after a crash or queued again by
 * the reaction replaying its events, sends only the messages never tried
 * (`untried`) and hands the others back with when they are due, so that a
 * retry is never posted by two runners at once.
 */
export async function deliverBatch(
  rt: SenderRuntime,
  accountId: number,
  streams: readonly string[],
  sends: 'untried' | 'any' = 'untried',
) {
  const histories = await rt.eventStore.readStreams(streams.map((stream) => ({ stream })))
  const now = rt.clock.nowMs()
  const later = new Map<string, number>()
  const due: { stream: string; message: WebhookMessageState; revision: number }[] = []
  streams.forEach((stream, i) => {
    const message = fold<WebhookMessageState, WebhookMessageEvent>(
      evolveWebhookMessageState,
      asDomainEvents(histories[i]!),
    )
    const when = dueAt(message, now)
    if (!when) return
    if (!when.due) later.set(stream, when.at)
    else if (sends === 'any' || message!.attempts === 0)
      due.push({ stream, message: message!, revision: histories[i]!.length - 1 })
    else later.set(stream, now)
  })
  const endpointIds = [...new Set(due.map((d) => d.message.endpoint_id))]
  const endpointHistories = await rt.eventStore.readStreams(
    endpointIds.map((id) => ({ stream: webhookEndpointStream(accountId, id) })),
  )
  // Each endpoint as it stands, its secrets opened once for the whole batch.
  const endpoints = new Map(
    endpointIds.map((id, i) => {
      const endpoint = fold<WebhookEndpointState, WebhookEndpointEvent>(
        evolveWebhookEndpointState,
        asDomainEvents(endpointHistories[i]!),
      )
      const open = endpoint && !endpoint.deleted && endpoint.status !== 'disabled'
      return [id, { endpoint, signers: open ? signersOf(rt, endpoint, Math.floor(now / 1000)) : [] }] as const
    }),
  )
  // One line of messages per subject, in log order; the lines run side by side.
  const lines = new Map<string, typeof due>()
  for (const d of due) {
    const subject = d.message.subject ?? d.stream
    lines.set(subject, [...(lines.get(subject) ?? []), d])
  }
  const queued = [...lines.values()]
  const decided = new Map<string, { message: WebhookMessageState; events: WebhookMessageEvent[] }>()
  const recorded = new Set<string>()
  let unrecorded: AppendRequest[] = []
  let recordingFailed: { error: unknown } | undefined
  // Attempts wait at most RECORD_WITHIN_MS, whatever the other receivers of the batch are doing.
  let recordDue: NodeJS.Timeout | undefined
  const recordings: Promise<void>[] = []
  const record = () => {
    clearTimeout(recordDue)
    const chunk = unrecorded
    unrecorded = []
    const recording = recordAttempts(rt, chunk).then(
      (streams) => {
        for (const stream of streams) recorded.add(stream)
      },
      (error: unknown) => {
        // Nothing more is sent that could not be recorded; the job fails and is run again.
        recordingFailed ??= { error }
        queued.length = 0
      },
    )
    recordings.push(recording)
  }
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, queued.length) }, async () => {
      for (let line = queued.shift(); line; line = queued.shift()) {
        for (const d of line) {
          if (recordingFailed) break
          const events = await attempt(rt, d.message, endpoints.get(d.message.endpoint_id)!, d.stream)
          if (events.length === 0) continue
          decided.set(d.stream, { message: d.message, events })
          if (unrecorded.length === 0) recordDue = setTimeout(record, RECORD_WITHIN_MS)
          unrecorded.push({
            stream: d.stream,
            expected: d.revision,
            events: toNewEvents(events, attemptMetadata(rt, accountId, d.message)),
          })
        }
      }
    }),
  )
  record()
  await Promise.all(recordings)
  if (recordingFailed) throw recordingFailed.error
  for (const [stream, { message, events }] of decided) {
    const next = recorded.has(stream) ? nextAttempt(message, events) : undefined
    if (next !== undefined) later.set(stream, next)
  }
  return later
}

/** Keep-alive connections per endpoint: reused from message to message, at most IN_FLIGHT of them. */
const connections = new Map<number, ReceiverConnections>()
function connectionsOf(endpointId: number, allowPrivate: boolean) {
  let pool = connections.get(endpointId)
  if (!pool) {
    pool = receiverConnections(IN_FLIGHT, allowPrivate)
    connections.set(endpointId, pool)
  }
  return pool
}

/**
 * What a sweep queues for the pending messages the delivery log shows. A
 * message never tried goes back into its batch job, under that job's id: the
 * job still waiting in Redis makes the add a no-op, and one Redis lost comes
 * back with the messages still untried, in log order, so a message is never
 * posted by its batch and by a job of its own, nor ahead of the messages
 * before it. Any other message goes as a job of its own, when due. A message
 * recorded before batches were kept, never tried and younger than a sweep's
 * round, is left to the batch job that holds it; the next round queues it.
 */
export function sweptDeliveries(
  pending: readonly { key: string; accountId: number; doc: WebhookDeliveryDoc }[],
  nowSeconds: number,
): { delivery: QueuedDelivery; notBefore?: number }[] {
  const batches = new Map<string, DeliveryBatch>()
  const alone: { delivery: QueuedDelivery; notBefore?: number }[] = []
  for (const { key, accountId, doc } of pending) {
    const untried = doc.attempts === 0 && doc.next_attempt_at === null
    if (untried && doc.batch != null) {
      // The job's first message names it, delivered or not: the batch skips what is no longer pending.
      const first = webhookMessageStream(accountId, doc.endpoint_id, doc.batch)
      const batch = batches.get(first) ?? { accountId, endpointId: doc.endpoint_id, streams: [first] }
      if (key !== first) batch.streams.push(key)
      batches.set(first, batch)
    } else if (!(untried && nowSeconds - doc.created_at < FRESH_SECONDS)) {
      alone.push({
        delivery: { accountId, stream: key },
        notBefore: doc.next_attempt_at === null ? undefined : doc.next_attempt_at * 1000,
      })
    }
  }
  const inLogOrder = (a: string, b: string) => {
    const [x, y] = [ofMessageStream(a).position, ofMessageStream(b).position]
    return x < y ? -1 : x > y ? 1 : 0
  }
  for (const batch of batches.values()) batch.streams.sort(inLogOrder)
  return [...[...batches.values()].map((delivery) => ({ delivery })), ...alone]
}

/** Queues again what the delivery log shows pending (on start, every 30 s, when Redis comes back). */
export async function sweepMessages(rt: Pick<Runtime, 'readStore' | 'clock'>, queue: DeliveryQueue) {
  const pending = await rt.readStore.lookupAll<WebhookDeliveryDoc>(
    collections.webhook_deliveries.name,
    'status',
    'pending',
    10_000,
  )
  for (const { delivery, notBefore } of sweptDeliveries(pending, toUnixSeconds(rt.clock.now()))) {
    if (!(await queue.enqueue(delivery, notBefore))) return
  }
}

/**
 * The worker side of webhooks: sends queued messages, each retried on the
 * retry schedule by putting its job back, delayed, under the same id. Every
 * 30 s and whenever Redis comes back, messages left pending in the log
 * (Redis restarted, or was away when they were made) are queued again.
 */
export function startWebhookSender(rt: SenderRuntime, queue: DeliveryQueue, connection: Redis) {
  // Each endpoint's jobs, a bounded number held at once when it is slow (its turns); its batches one after
  // another in the order the worker took them (its line).
  const turns = new Map<string, EndpointTurns>()
  const turnsOf = (key: string) => {
    const endpoint = turns.get(key) ?? new EndpointTurns()
    turns.set(key, endpoint)
    return endpoint
  }
  const lines = new Map<string, Promise<unknown>>()
  const inLine = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = lines.get(key) ?? Promise.resolve()
    const mine = before.then(work, work)
    const settled = mine.catch(() => undefined)
    lines.set(key, settled)
    void settled.then(() => {
      if (lines.get(key) === settled) lines.delete(key)
    })
    return mine
  }
  const worker = new Worker<QueuedDelivery>(
    queue.name,
    async (job, token) => {
      /** The job back in the queue, delayed until `at` (Unix ms), under its id. */
      const delayUntil = async (at: number): Promise<never> => {
        await job.moveToDelayed(at, token)
        throw new DelayedError()
      }
      if ('streams' in job.data) {
        // A batch: one endpoint's batches go one after another (its messages about one subject stay in
        // order); a message left pending waits for its next attempt as a job of its own.
        const { accountId, endpointId, streams } = job.data
        const key = `${accountId}_${endpointId}`
        const endpoint = turnsOf(key)
        const now = performance.now()
        if (!endpoint.take(ofMessageStream(streams[0]!).position, now))
          return delayUntil(Date.now() + endpoint.putBackFor(now))
        try {
          const later = await inLine(key, async () => {
            endpoint.sending(performance.now())
            try {
              return await deliverBatch(rt, accountId, streams)
            } finally {
              endpoint.done(performance.now())
            }
          })
          for (const [stream, at] of later) await queue.enqueue({ accountId, stream }, at).catch(() => false)
        } finally {
          if (endpoint.idle) turns.delete(key)
        }
        return
      }
      // A single message: it counts in its endpoint's share too, and keeps no order.
      const key = `${job.data.accountId}_${ofMessageStream(job.data.stream).endpointId}`
      const endpoint = turnsOf(key)
      const started = performance.now()
      if (!endpoint.takeOne(started)) return delayUntil(Date.now() + endpoint.putBackOneFor())
      let next: number | undefined
      try {
        next = await attemptDelivery(rt, job.data)
      } finally {
        endpoint.doneOne(performance.now() - started)
        if (endpoint.idle) turns.delete(key)
      }
      if (next !== undefined) return delayUntil(next)
    },
    // Short locks, checked often: a message held by a worker that died is taken back within seconds.
    { connection, concurrency: CONCURRENCY, lockDuration: 5_000, stalledInterval: 2_000, maxStalledCount: 10 },
  )
  worker.on('error', workerErrors(connection, rt.logger, 'webhook sender error'))
  const stopSweeping = keepSweeping(
    queue,
    () => sweepMessages(rt, queue),
    (error) => rt.logger.warn({ err: error }, 'webhook sweep failed'),
  )
  return {
    async close() {
      stopSweeping()
      await Promise.all([...connections.values()].map((pool) => pool.destroy()))
      connections.clear()
      await (isRedisReady(connection) ? worker.close() : worker.close(true))
    },
  }
}
