import { Queue } from 'bullmq'
import type { Redis } from 'ioredis'

export const JOB_NAME = 'run'

/** What BullMQ carries: only the job's identity; its state lives in its event stream. */
export interface QueuedJob {
  accountId: number
  jobId: number
}

export interface JobQueue {
  /** Idempotent: a job already waiting in Redis is not added twice. */
  enqueue(job: QueuedJob): Promise<void>
  close(): Promise<void>
}

export function createJobQueue(name: string, connection: Redis): JobQueue {
  const queue = new Queue<QueuedJob>(name, { connection })
  return {
    async enqueue(job) {
      await queue.add(JOB_NAME, job, {
        jobId: `job_${job.accountId}_${job.jobId}`,
        // Transient faults (a store restarting) are retried; the job resumes where it stopped.
        attempts: 5,
        backoff: { type: 'exponential', delay: 500 },
        removeOnComplete: 1000,
        removeOnFail: 5000,
      })
    },
    close: () => queue.close(),
  }
}
