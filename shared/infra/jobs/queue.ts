import { type BackoffOptions, Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import { isRedisReady } from './redis.ts'

/**
 * A BullMQ queue that carries only identities: what a job works on lives in
 * the event log, so Redis losing a job loses nothing a sweep cannot queue again.
 */
export interface WorkQueue<T> {
  readonly name: string
  /** The BullMQ queue itself, for the operators' dashboard and metrics. */
  readonly bull: Queue<T>
  /**
   * Idempotent: work already waiting under the same id is not added twice.
   * False, at once, while Redis is away. `notBefore` (Unix ms) delays it.
   */
  enqueue(data: T, notBefore?: number): Promise<boolean>
  /** As `enqueue`, and work already waiting under the same id for a later time runs now. */
  enqueueNow(data: T): Promise<boolean>
  /** Whether Redis takes commands now. */
  available(): boolean
  /** Calls `listener` each time Redis comes back; returns how to stop. */
  whenAvailable(listener: () => void): () => void
  close(): Promise<void>
}

/**
 * A queue's errors are its connection's: connectRedis logs once that Redis
 * went away and once that it came back, so the queue's own reports of each
 * retry are not printed (unheard, each would be a stack on stderr).
 */
export const quietQueue = <Q extends Queue>(queue: Q): Q => {
  queue.on('error', () => {})
  return queue
}

export function createWorkQueue<T>(
  name: string,
  connection: Redis,
  options: {
    /** The id of a piece of work: the same work twice is one job. */
    jobId: (data: T) => string
    attempts: number
    backoff: BackoffOptions
    /** Kept after completion (dashboard history), or removed so the id is free at once. */
    keepCompleted?: number
  },
): WorkQueue<T> {
  const queue = quietQueue(new Queue<T>(name, { connection }))
  return {
    name,
    bull: queue,
    available: () => isRedisReady(connection),
    whenAvailable(listener) {
      connection.on('ready', listener)
      return () => connection.off('ready', listener)
    },
    async enqueue(data, notBefore) {
      if (!isRedisReady(connection)) return false
      // biome-ignore lint/suspicious/noExplicitAny: BullMQ's name and data generics do not meet here.
      await (queue as Queue<any>).add('run', data, {
        jobId: options.jobId(data),
        delay: notBefore === undefined ? 0 : Math.max(0, notBefore - Date.now()),
        attempts: options.attempts,
        backoff: options.backoff,
        removeOnComplete: options.keepCompleted ?? true,
        removeOnFail: options.keepCompleted === undefined ? true : 5000,
      })
      return true
    },
    async enqueueNow(data) {
      if (!isRedisReady(connection)) return false
      const waiting = await queue.getJob(options.jobId(data))
      // Promoting fails if the job left the delayed state meanwhile: it is then running or gone.
      if (waiting && (await waiting.isDelayed()))
        return waiting.promote().then(
          () => true,
          () => this.enqueue(data),
        )
      return this.enqueue(data)
    },
    close: () => queue.close(),
  }
}

/** How often a sweep looks in the log for work Redis no longer holds (a Redis restart). */
const SWEEP_MS = 30_000

/**
 * Runs `sweep` (queue again whatever the log says is unfinished) now, every
 * 30 s, and whenever Redis comes back, so what was accepted during an outage
 * is queued at once. Returns how to stop.
 */
export function keepSweeping(
  queue: Pick<WorkQueue<unknown>, 'available' | 'whenAvailable'>,
  sweep: () => Promise<void>,
  onError: (error: unknown) => void,
): () => void {
  const sweeping = () => {
    if (queue.available()) sweep().catch(onError)
  }
  sweeping()
  const timer = setInterval(sweeping, SWEEP_MS)
  const stopOnReturn = queue.whenAvailable(sweeping)
  return () => {
    clearInterval(timer)
    stopOnReturn()
  }
}

/** What the jobs queue carries: only the job's identity; its state lives in its event stream. */
export interface QueuedJob {
  accountId: number
  jobId: number
}

export type JobQueue = WorkQueue<QueuedJob>

/**
 * The jobs queue (imports, replays). A job missing from Redis is found by
 * the worker's sweep, and enqueued again when Redis is back.
 */
export const createJobQueue = (name: string, connection: Redis): JobQueue =>
  createWorkQueue<QueuedJob>(name, connection, {
    jobId: (job) => `job_${job.accountId}_${job.jobId}`,
    // Transient faults (a store restarting) are retried; the job resumes where it stopped.
    attempts: 5,
    backoff: { type: 'exponential', delay: 500 },
    keepCompleted: 1000,
  })
