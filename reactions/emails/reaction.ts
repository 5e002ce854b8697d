import type { Redis } from 'ioredis'
import type { OrderEvent } from '../../shared/domain/orders/state.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { createWorkQueue, type WorkQueue } from '../../shared/infra/jobs/queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { startReaction } from '../follow.ts'

/** What BullMQ carries for an e-mail: where its notification is; the e-mail is made from the order when sent. */
export interface QueuedEmail {
  accountId: number
  stream: string
  notificationId: number
  payloadId: number
  trackerId?: number
}

export type EmailQueue = WorkQueue<QueuedEmail>

/** Attempts at an e-mail: `SHIPLOG_MAIL_ATTEMPTS`, the delay doubling from `SHIPLOG_MAIL_RETRY_DELAY_MS`; then it is failed. */
export const createEmailQueue = (
  jobQueueName: string,
  connection: Redis,
  retries: { attempts: number; firstDelayMs: number },
): EmailQueue =>
  createWorkQueue<QueuedEmail>(`${jobQueueName}-emails`, connection, {
    jobId: (email) => `email_${email.payloadId}`,
    attempts: retries.attempts,
    backoff: { type: 'exponential', delay: retries.firstDelayMs },
  })

/** Resolves when Redis takes commands, or when the reaction stops. */
const untilAvailable = (queue: EmailQueue, signal: AbortSignal) =>
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
 * The e-mail reaction: each notification built with an e-mail payload is
 * queued for sending. While Redis is away it waits, its checkpoint held, so
 * no e-mail is skipped; the job id (the payload's) keeps a batch handled twice
 * from queueing an e-mail twice, and the sender sends only a payload still `built`.
 */
export function startEmailReaction(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'logger'>,
  queue: EmailQueue,
) {
  return startReaction(rt, {
    name: 'emails',
    only: () => ({ types: ['NotificationBuilt'] }),
    async handle(batch, signal) {
      let queued = false
      for (const recorded of batch) {
        if (recorded.type !== 'NotificationBuilt') continue
        const [event] = asDomainEvents<Extract<OrderEvent, { type: 'NotificationBuilt' }>>([recorded])
        const { notification, tracker_id } = event!.data
        for (const payload of notification.notification_payloads) {
          if (payload.type !== 'email' || payload.status !== 'built') continue
          const email = {
            accountId: recorded.metadata.accountId,
            stream: recorded.stream,
            notificationId: notification.id,
            payloadId: payload.id,
            ...(tracker_id === undefined ? {} : { trackerId: tracker_id }),
          }
          while (!(await queue.enqueue(email).catch(() => false))) {
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
