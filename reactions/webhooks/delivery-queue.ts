import type { Redis } from 'ioredis'
import { createWorkQueue, type WorkQueue } from '../../shared/infra/jobs/queue.ts'

/**
 * What BullMQ carries for webhook messages: only their streams; each
 * message and its state live there. One message (a retry, a sweep's), or a
 * batch of one endpoint's new messages in log order.
 */
export type QueuedDelivery = { accountId: number; stream: string } | DeliveryBatch

/** A batch job: one endpoint's new messages, in log order; its id is its first message's. */
export type DeliveryBatch = { accountId: number; endpointId: number; streams: string[] }

export type DeliveryQueue = WorkQueue<QueuedDelivery>

/**
 * One job per message, under the message's stream name; removed once done,
 * so the id is free for the message's next attempt or replay. A message
 * missing from Redis is pending in its stream, and the sweep queues it again.
 */
export const createDeliveryQueue = (jobQueueName: string, connection: Redis): DeliveryQueue =>
  createWorkQueue<QueuedDelivery>(`${jobQueueName}-webhooks`, connection, {
    jobId: (delivery) => ('stream' in delivery ? delivery.stream : `batch_${delivery.streams[0]}`),
    // A store fault while recording an outcome is retried; the receiver's own faults are the retry schedule's.
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
  })
