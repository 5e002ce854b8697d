import type { Redis } from 'ioredis'
import { createWorkQueue, type WorkQueue } from '../../shared/infra/jobs/queue.ts'

/** What BullMQ carries for a webhook message: only its stream; the message and its state live there. */
export interface QueuedDelivery {
  accountId: number
  stream: string
}

export type DeliveryQueue = WorkQueue<QueuedDelivery>

/**
 * One job per message, under the message's stream name; removed once done,
 * so the id is free for the message's next attempt or replay. A message
 * missing from Redis is pending in its stream, and the sweep queues it again.
 */
export const createDeliveryQueue = (jobQueueName: string, connection: Redis): DeliveryQueue =>
  createWorkQueue<QueuedDelivery>(`${jobQueueName}-webhooks`, connection, {
    jobId: (delivery) => delivery.stream,
    // A store fault while recording an outcome is retried; the receiver's own faults are the retry schedule's.
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
  })
