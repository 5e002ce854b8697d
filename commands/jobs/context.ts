import {
  decideJob,
  evolveJobState,
  foldJobState,
  type JobCommand,
  type JobEvent,
  type JobState,
  jobStream,
} from '../../shared/domain/jobs/job.ts'
import type { AppendRequest, EventMetadata } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import type { QueuedJob } from '../../shared/infra/jobs/queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { toNewEvents } from '../execute.ts'

/** A fault of the job's input: the job fails with this message, and is not retried. */
export class JobFailure extends Error {
  override name = 'JobFailure'
}

/** What a job's work needs to append its progress: the job as it stands and its stream's revision. */
export interface JobContext {
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'blobs' | 'clock' | 'ids' | 'config' | 'secrets'>
  accountId: number
  /** The job as it stands, kept up to date by appendWithProgress. */
  job: JobState
  stream: string
  /** Revision of the job stream's last event; progress appends expect it. */
  revision: number
  metadata: () => EventMetadata
  /** Appends events to other streams together with the job's decision on `progress`, atomically (`prechecked`: see toNewEvents). */
  appendWithProgress(appends: AppendRequest[], progress: JobCommand, options?: { prechecked?: boolean }): Promise<void>
}

/**
 * Folds a queued job's stream into the context its work appends through, or
 * nothing when the job is unknown. A finished job's context appends nothing:
 * its runner has only its upload left to remove.
 */
export async function openJob(rt: JobContext['rt'], queued: QueuedJob): Promise<JobContext | undefined> {
  const stream = jobStream(queued.accountId, queued.jobId)
  const history = await rt.eventStore.readStream(stream)
  const job = foldJobState(asDomainEvents<JobEvent>(history))
  if (!job) return undefined
  const metadata = (): EventMetadata => ({
    accountId: queued.accountId,
    correlationId: `job_${queued.jobId}`,
    source: 'job',
    recordedAt: rt.clock.nowMs(),
  })
  const ctx: JobContext = {
    rt,
    accountId: queued.accountId,
    job,
    stream,
    revision: history.length - 1,
    metadata,
    async appendWithProgress(appends, progress, options) {
      const events = decideJob(progress, ctx.job)
      if (events.length === 0) {
        // Nothing to record (a resumed job is already started): nothing else may be written without it.
        if (appends.some((a) => a.events.length > 0)) throw new Error(`job ${ctx.job.id} is ${ctx.job.status}`)
        return
      }
      const result = await rt.eventStore.append([
        ...appends.filter((a) => a.events.length > 0),
        { stream, expected: ctx.revision, events: toNewEvents(events, metadata(), options) },
      ])
      ctx.revision = result.revisions[result.revisions.length - 1]!
      ctx.job = events.reduce(evolveJobState, ctx.job)
    },
  }
  return ctx
}
