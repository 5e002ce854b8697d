import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import type { NotificationDoc } from '../../projectors/notifications/notification.ts'
import type { PayloadDoc } from '../../projectors/notifications/payload-document.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'
import type { NotificationChannel } from '../../shared/domain/vocabulary/channels.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { createWorkQueue, keepSweeping, type WorkQueue } from '../../shared/infra/jobs/queue.ts'
import { isRedisReady, workerErrors } from '../../shared/infra/jobs/redis.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { startReaction } from '../follow.ts'
import { type PayloadAddress, payloadAddress } from '../../commands/notifications/record-payload.ts'

/*
 * What every channel's payloads share, e-mail and SMS alike: a reaction that
 * queues each payload built, a BullMQ worker that sends it with retries, a
 * sweep that queues again every payload the log says is still `built` (on
 * start, every 30 s, when Redis comes back: Redis losing its queue loses no
 * message), and the outcome recorded on the order by the payloads' decider.
 */

/** What BullMQ carries for a payload: where its notification is; the message is made from the order when sent. */
export type QueuedPayload = PayloadAddress

export type PayloadQueue = WorkQueue<QueuedPayload>

/** Each channel's queue (`<QUEUE_NAME>-emails`, `-sms`) and reaction. */
export const channelNames = {
  email: { queue: 'emails', reaction: 'emails' },
  sms: { queue: 'sms', reaction: 'sms' },
} as const satisfies Record<NotificationChannel, { queue: string; reaction: string }>

/** Attempts at a payload, the delay doubling from the first; then it is failed. */
export const createPayloadQueue = (
  channel: NotificationChannel,
  jobQueueName: string,
  connection: Redis,
  retries: { attempts: number; firstDelayMs: number },
): PayloadQueue =>
  createWorkQueue<QueuedPayload>(`${jobQueueName}-${channelNames[channel].queue}`, connection, {
    jobId: (payload) => `${channel}_${payload.payloadId}`,
    attempts: retries.attempts,
    backoff: { type: 'exponential', delay: retries.firstDelayMs },
  })

/** Resolves when Redis takes commands, or when the reaction stops. */
const untilAvailable = (queue: PayloadQueue, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (queue.available() || signal.aborted) return resolve()
    const done = () => {
      stop()
      signal.removeEventListener('abort', done)
      resolve()
    }
    const stop = queue.whenAvailable(done)
    signal.addEventListener('abort', done)
  })

/**
 * The channel's reaction: each notification built with a payload of the
 * channel is queued for sending. While Redis is away it waits, its checkpoint
 * held, so no payload is skipped; the job id (the payload's) keeps a batch
 * handled twice from queueing a payload twice, and the sender sends only a
 * payload still `built`.
 */
export function startPayloadReaction(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'logger'>,
  queue: PayloadQueue,
  channel: NotificationChannel,
) {
  return startReaction(rt, {
    name: channelNames[channel].reaction,
    only: () => ({ types: ['NotificationBuilt'] }),
    async handle(batch, signal) {
      let queued = false
      for (const recorded of batch) {
        if (recorded.type !== 'NotificationBuilt') continue
        const [event] = asDomainEvents<Extract<OrderEvent, { type: 'NotificationBuilt' }>>([recorded])
        const { notification, tracker_id } = event!.data
        for (const payload of notification.notification_payloads) {
          if (payload.type !== channel || payload.status !== 'built') continue
          const queuedPayload = payloadAddress({
            accountId: recorded.metadata.accountId,
            stream: recorded.stream,
            notificationId: notification.id,
            payloadId: payload.id,
            trackerId: tracker_id,
          })
          while (!(await queue.enqueue(queuedPayload).catch(() => false))) {
            await untilAvailable(queue, signal)
            if (signal.aborted) return false
          }
          queued = true
        }
      }
      return queued
    },
  })
}

type SenderRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'logger'>

/** Most payloads one sweep queues again: the rest wait for a later sweep, once these are sent. */
const SWEEP_LIMIT = 10_000

/**
 * A channel's payloads the read models show still `built`: an e-mail's state
 * is kept on its notification, an SMS has a read model of its own (found
 * also by its id and phone, by the provider's callbacks).
 */
const stillBuilt: Record<NotificationChannel, (store: ReadStore) => Promise<QueuedPayload[]>> = {
  async email(store) {
    const built = await store.lookupAll<NotificationDoc>(
      collections.notifications.name,
      'email_status',
      'built',
      SWEEP_LIMIT,
    )
    return built.flatMap(({ accountId, doc }) =>
      doc.email
        ? [
            payloadAddress({
              accountId,
              stream: doc.order_key,
              notificationId: doc.id,
              payloadId: doc.email.id,
              trackerId: doc.tracker_id,
            }),
          ]
        : [],
    )
  },
  async sms(store) {
    const built = await store.lookupAll<PayloadDoc>(collections.sms_payloads.name, 'status', 'built', SWEEP_LIMIT)
    return built.map(({ accountId, doc }) =>
      payloadAddress({
        accountId,
        stream: doc.stream,
        notificationId: doc.notification_id,
        payloadId: doc.id,
        trackerId: doc.tracker_id,
      }),
    )
  },
}

/** Queues again every payload of the channel the log says is still `built`. */
async function sweepBuilt(rt: SenderRuntime, queue: PayloadQueue, channel: NotificationChannel) {
  for (const payload of await stillBuilt[channel](rt.readStore)) if (!(await queue.enqueue(payload))) return
}

/**
 * A channel's sender: a BullMQ worker running `send` for each queued payload
 * (told whether this is its last attempt; a throw is retried, an
 * UnrecoverableError is not), and the sweep.
 */
export function startPayloadSender(
  rt: SenderRuntime,
  queue: PayloadQueue,
  connection: Redis,
  channel: NotificationChannel,
  send: (payload: QueuedPayload, attempt: { last: boolean; job: Job<QueuedPayload>; token?: string }) => Promise<void>,
) {
  const worker = new Worker<QueuedPayload>(
    queue.name,
    async (job, token) => {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1)
      await send(job.data, { last, job, token }).catch((error: unknown) => {
        if (last && !(error instanceof UnrecoverableError || error instanceof DelayedError))
          throw new UnrecoverableError(String(error))
        throw error
      })
    },
    { connection, concurrency: 4, lockDuration: 30_000, stalledInterval: 10_000, maxStalledCount: 10 },
  )
  worker.on('failed', (job, error) => rt.logger.warn({ err: error, payload: job?.data, channel }, 'attempt failed'))
  worker.on('error', workerErrors(connection, rt.logger, 'sender error', { channel }))
  const stopSweeping = keepSweeping(
    queue,
    () => sweepBuilt(rt, queue, channel),
    (error) => rt.logger.warn({ err: error, channel }, 'sweep failed'),
  )
  return {
    async close() {
      stopSweeping()
      await (isRedisReady(connection) ? worker.close() : worker.close(true))
    },
  }
}
