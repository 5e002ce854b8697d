import { Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { isRedisReady, workerErrors } from '../shared/infra/jobs/redis.ts'
import type { JobDoc } from '../projectors/jobs/job.ts'
import { type JobQueue, keepSweeping, type QueuedJob } from '../shared/infra/jobs/queue.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { removeLeftUploads, runJob } from './run.ts'
import type { DeliveryQueue } from '../reactions/webhooks/delivery-queue.ts'

/**
 * The worker role: runs queued jobs from BullMQ with bounded concurrency. A
 * job's state lives in its event stream, not in Redis: on start, every 30 s
 * and when Redis comes back, jobs left queued or processing are enqueued
 * again (BullMQ ignores the ones it still holds), so a Redis restart loses
 * nothing; and uploads nothing will read are removed (removeLeftUploads).
 */
export function startJobWorker(rt: Runtime, queue: JobQueue, connection: Redis, deliveries?: DeliveryQueue) {
  const worker = new Worker<QueuedJob>(
    rt.config.QUEUE_NAME,
    async (job) => runJob(rt, job.data, { lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1), deliveries }),
    {
      connection,
      concurrency: rt.config.WORKER_CONCURRENCY,
      // A worker that dies holds its job's lock until it expires: short locks, checked
      // often, let a restarted worker take abandoned work back within seconds. A
      // second runner of the same job is safe: its appends expect the job's revision.
      lockDuration: 5_000,
      stalledInterval: 2_000,
      maxStalledCount: 10,
    },
  )
  worker.on('failed', (job, error) => rt.logger.warn({ err: error, job: job?.data }, 'job attempt failed'))
  // While Redis is away its connection says so once; the worker's own retries add nothing.
  worker.on('error', workerErrors(connection, rt.logger, 'job worker error'))

  const sweep = async () => {
    for (const status of ['queued', 'processing']) {
      const left = await rt.readStore.lookupAll<JobDoc>(collections.jobs.name, 'status', status, 10_000)
      for (const doc of left) await queue.enqueue({ accountId: doc.accountId, jobId: doc.id })
    }
    await removeLeftUploads(rt)
  }
  const stopSweeping = keepSweeping(queue, sweep, (error) => rt.logger.warn({ err: error }, 'job sweep failed'))
  return {
    async close() {
      stopSweeping()
      // With Redis away the worker cannot hand its jobs back: their streams keep them for the next start.
      await (isRedisReady(connection) ? worker.close() : worker.close(true))
    },
  }
}
