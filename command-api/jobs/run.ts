import { ShiplogError, isConcurrencyError } from '../../shared/domain/errors.ts'
import type { AppendRequest, EventMetadata } from '../../shared/infra/event-store/port.ts'
import type { DomainEvent } from '../../shared/domain/events/index.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { foldJob, isFinished, jobStream, type JobDoc, type JobEvent } from '../../projectors/jobs/job.ts'
import type { QueuedJob } from '../../shared/infra/jobs/queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { toNewEvents } from '../execute.ts'
import { importPickupPoints } from '../pickup-points/import.ts'

/** A fault of the job's input: the job fails with this message, and is not retried. */
export class JobFailure extends Error {
  override name = 'JobFailure'
}

/** What a job's work needs to append its progress: the job as it stands and its stream's revision. */
export interface JobContext {
  rt: Pick<Runtime, 'eventStore' | 'blobs' | 'clock' | 'ids'>
  accountId: number
  job: JobDoc
  stream: string
  /** Revision of the job stream's last event; progress appends expect it. */
  revision: number
  metadata: () => EventMetadata
  /** Appends events to other streams together with a progress event on the job stream, atomically (`prechecked`: see toNewEvents). */
  appendWithProgress(appends: AppendRequest[], progress: DomainEvent, options?: { prechecked?: boolean }): Promise<void>
}

/**
 * Runs one job to its end from wherever it stands: a finished job is left
 * alone, a started one resumes after the items it already recorded. A
 * concurrent runner or a transient fault throws, and BullMQ retries; on the
 * last attempt, and on a JobFailure, the job is marked failed.
 */
export async function runJob(rt: JobContext['rt'], queued: QueuedJob, options: { lastAttempt: boolean }) {
  const stream = jobStream(queued.accountId, queued.jobId)
  const history = await rt.eventStore.readStream(stream)
  const job = foldJob(asDomainEvents<JobEvent>(history))
  if (!job || isFinished(job)) return
  const metadata = (): EventMetadata => ({
    accountId: queued.accountId,
    correlationId: `job_${queued.jobId}`,
    recordedAt: rt.clock.now().getTime(),
  })
  const at = () => toUnixSeconds(rt.clock.now())
  const ctx: JobContext = {
    rt,
    accountId: queued.accountId,
    job,
    stream,
    revision: history.length - 1,
    metadata,
    async appendWithProgress(appends, progress, options) {
      const result = await rt.eventStore.append([
        ...appends.filter((a) => a.events.length > 0),
        { stream, expected: ctx.revision, events: toNewEvents([progress], metadata(), options) },
      ])
      ctx.revision = result.revisions[result.revisions.length - 1]!
    },
  }
  const appendToJob = (event: DomainEvent) => ctx.appendWithProgress([], event)
  try {
    if (job.status === 'queued') await appendToJob({ type: 'JobStarted', data: { at: at() } })
    switch (job.type) {
      case 'pickup_points.import':
        await importPickupPoints(ctx)
        break
    }
    await appendToJob({ type: 'JobCompleted', data: { at: at() } })
  } catch (error) {
    if (isConcurrencyError(error)) throw error // another runner moved the job: retry from its new state
    if (error instanceof JobFailure || options.lastAttempt) {
      const message =
        error instanceof JobFailure || error instanceof ShiplogError
          ? error.message
          : 'The job failed after several attempts'
      await appendToJob({ type: 'JobFailed', data: { error: message, at: at() } })
      return
    }
    throw error
  }
}
