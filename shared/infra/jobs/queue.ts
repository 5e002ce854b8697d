import { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import { isRedisReady } from './redis.ts'

export const JOB_NAME = 'run'

/** What BullMQ carries: only the job's identity; its state lives in its event stream. */
export interface QueuedJob {
  accountId: number
  jobId: number
}

export interface JobQueue {
  /**
   * Idempotent: a job already waiting in Redis is not added twice. False, at
   * once, while Redis is away: the job is safe in its stream, and the worker's
   * sweep enqueues it when Redis is back.
   */
  enqueue(job: QueuedJob): Promise<boolean>
  /** Whether Redis takes commands now. */
  available(): boolean
  /** The BullMQ queue itself, for the operators' dashboard and metrics. */
  readonly bull: Queue<QueuedJob>
  /** Calls `listener` each time Redis comes back; returns how to stop. */
  whenAvailable(listener: () => void): () => void
  close(): Promise<void>
}

export function createJobQueue(name: string, connection: Redis): JobQueue {
  const queue = new Queue<QueuedJob>(name, { connection })
  return {
    bull: queue,
    available: () => isRedisReady(connection),
    whenAvailable(listener) {
      connection.on('ready', listener)
      return () => connection.off('ready', listener)
    },
    async enqueue(job) {
      if (!isRedisReady(connection)) return false
      await queue.add(JOB_NAME, job, {
        jobId: `job_${job.accountId}_${job.jobId}`,
        // Transient faults (a store restarting) are retried; the job resumes where it stopped.
        attempts: 5,
        backoff: { type: 'exponential', delay: 500 },
        removeOnComplete: 1000,
        removeOnFail: 5000,
      })
      return true
    },
    close: () => queue.close(),
  }
}
