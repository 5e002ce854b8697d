import { ShiplogError, isConcurrencyError } from '../../shared/domain/errors.ts'
import type { AppendRequest, EventMetadata } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import {
  decideJob,
  evolveJobState,
  foldJobState,
  isFinished,
  jobStream,
  type JobCommand,
  type JobEvent,
  type JobState,
} from '../../shared/domain/jobs/job.ts'
import type { QueuedJob } from '../../shared/infra/jobs/queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { toNewEvents } from '../execute.ts'
import { importPickupPoints } from '../pickup-points/import.ts'
import { runBatchCreate } from '../orders/upsert.ts'
import type { AccountDoc } from '../../projectors/accounts/account.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { DeliveryQueue } from '../../projectors/reactions/webhooks/delivery-queue.ts'
import { replayWebhookMessages } from '../../projectors/reactions/webhooks/replay.ts'

/** A fault of the job's input: the job fails with this message, and is not retried. */
export class JobFailure extends Error {
  override name = 'JobFailure'
}

/** What a job's work needs to append its progress: the job as it stands and its stream's revision. */
export interface JobContext {
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'blobs' | 'clock' | 'ids'>
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
 * Runs one job to its end from wherever it stands: a finished job is left
 * alone, a started one resumes after the items it already recorded. A
 * concurrent runner or a transient fault throws, and BullMQ retries; on the
 * last attempt, and on a JobFailure, the job is marked failed.
 */
export async function runJob(
  rt: JobContext['rt'],
  queued: QueuedJob,
  options: { lastAttempt: boolean; deliveries?: DeliveryQueue },
) {
  const stream = jobStream(queued.accountId, queued.jobId)
  const history = await rt.eventStore.readStream(stream)
  const job = foldJobState(asDomainEvents<JobEvent>(history))
  if (!job || isFinished(job)) return
  const metadata = (): EventMetadata => ({
    accountId: queued.accountId,
    correlationId: `job_${queued.jobId}`,
    recordedAt: rt.clock.nowMs(),
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
  const appendToJob = (command: JobCommand) => ctx.appendWithProgress([], command)
  try {
    await appendToJob({ type: 'StartJob', at: at() })
    switch (job.type) {
      case 'pickup_points.import':
        await importPickupPoints(ctx)
        break
      case 'webhook_endpoints.replay':
        await replayWebhookMessages(ctx, options.deliveries)
        break
      case 'orders.batch_create': {
        const account = await rt.readStore.get<AccountDoc>(
          collections.accounts.name,
          queued.accountId,
          queued.accountId,
        )
        if (!account) throw new JobFailure('The account was deleted')
        await runBatchCreate(ctx, account.doc)
        break
      }
    }
    await appendToJob({ type: 'CompleteJob', at: at() })
  } catch (error) {
    if (isConcurrencyError(error)) throw error // another runner moved the job: retry from its new state
    if (error instanceof JobFailure || options.lastAttempt) {
      const message =
        error instanceof JobFailure || error instanceof ShiplogError
          ? error.message
          : 'The job failed after several attempts'
      await appendToJob({ type: 'FailJob', error: message, at: at() })
      return
    }
    throw error
  }
}
