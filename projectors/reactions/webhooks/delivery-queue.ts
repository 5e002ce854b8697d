import { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import { isRedisReady } from '../../../shared/infra/jobs/redis.ts'

/** What BullMQ carries for a webhook message: only its stream; the message and its state live there. */
export interface QueuedDelivery {
  accountId: number
  stream: string
}

export interface DeliveryQueue {
  readonly name: string
  readonly bull: Queue<QueuedDelivery>
  /**
   * Queues a message's next attempt, at `notBefore` (Unix ms) or now. One job
   * per message: a message already waiting is not queued twice. False, at
   * once, while Redis is away: the message is pending in its stream, and the
   * sweep queues it when Redis is back.
   */
  enqueue(delivery: QueuedDelivery, notBefore?: number): Promise<boolean>
  available(): boolean
  whenAvailable(listener: () => void): () => void
  close(): Promise<void>
}

export function createDeliveryQueue(jobQueueName: string, connection: Redis): DeliveryQueue {
  const name = `${jobQueueName}-webhooks`
  const queue = new Queue<QueuedDelivery>(name, { connection })
  return {
    name,
    bull: queue,
    available: () => isRedisReady(connection),
    whenAvailable(listener) {
      connection.on('ready', listener)
      return () => connection.off('ready', listener)
    },
    async enqueue(delivery, notBefore) {
      if (!isRedisReady(connection)) return false
      await queue.add('deliver', delivery, {
        jobId: delivery.stream,
        delay: notBefore === undefined ? 0 : Math.max(0, notBefore - Date.now()),
        // A store fault while recording an outcome is retried; the receiver's own faults are the retry schedule's.
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
        // Gone once done, so the id is free for the message's next attempt or replay.
        removeOnComplete: true,
        removeOnFail: true,
      })
      return true
    },
    close: () => queue.close(),
  }
}
