import { JobFailure, type JobContext, openJob } from '../commands/jobs/context.ts'
import { runBatchCreate } from '../commands/orders/upsert.ts'
import { runBackfill } from '../commands/connections/backfill.ts'
import { importPickupPoints } from '../commands/pickup-points/import.ts'
import type { AccountDoc } from '../projectors/accounts/account.ts'
import type { JobDoc } from '../projectors/jobs/job.ts'
import type { DeliveryQueue } from '../reactions/webhooks/delivery-queue.ts'
import { replayWebhookMessages } from '../reactions/webhooks/replay.ts'
import { isConcurrencyError, ShiplogError } from '../shared/domain/errors.ts'
import { isFinished, type JobCommand, jobOfUpload, jobStream } from '../shared/domain/jobs/job.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'
import type { QueuedJob } from '../shared/infra/jobs/queue.ts'
import { idTime } from '../shared/infra/id-generator.ts'
import { collections } from '../shared/infra/read-store/collections.ts'

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
  const ctx = await openJob(rt, queued)
  if (!ctx) return
  const { job } = ctx
  if (isFinished(job)) {
    // Ended already. A run stopped between recording the end and removing the
    // upload (a crash) is delivered again: the file it left goes now.
    await removeUpload(rt, job)
    return
  }
  const at = () => toUnixSeconds(rt.clock.now())
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
      case 'connections.backfill':
        await runBackfill(ctx, await accountOf(rt, queued.accountId))
        break
      case 'orders.batch_create':
        await runBatchCreate(ctx, await accountOf(rt, queued.accountId))
        break
    }
    await appendToJob({ type: 'CompleteJob', at: at() })
    await removeUpload(rt, job)
  } catch (error) {
    if (isConcurrencyError(error)) throw error // another runner moved the job: retry from its new state
    if (error instanceof JobFailure || options.lastAttempt) {
      const message =
        error instanceof JobFailure || error instanceof ShiplogError
          ? error.message
          : 'The job failed after several attempts'
      await appendToJob({ type: 'FailJob', error: message, at: at() })
      await removeUpload(rt, job)
      return
    }
    throw error
  }
}

/** The account a job works for; a deleted one fails it. */
async function accountOf(rt: JobContext['rt'], accountId: number) {
  const account = await rt.readStore.get<AccountDoc>(collections.accounts.name, accountId, accountId)
  if (!account || account.doc.deleted) throw new JobFailure('The account was deleted')
  return account.doc
}

/**
 * A job's uploaded file is removed once the job has ended: its results are
 * in the log, and nothing reads the file again. A file that cannot be
 * removed is left behind rather than failing a job that has ended.
 */
async function removeUpload(rt: JobContext['rt'], job: JobContext['job']) {
  if (job.blob) await rt.blobs.remove(job.blob).catch(() => undefined)
}

/**
 * An upload with no job this long after it began was cut short by a stop
 * between storing the file and recording its job. A request is cut off after
 * REQUEST_TIMEOUT_MS (two minutes by default); a day leaves room for a process
 * whose setting differs from this one's.
 */
const ABANDONED_UPLOAD_MS = 24 * 60 * 60 * 1000

/**
 * Removes the uploads nothing will read: those of jobs that have ended, and
 * those whose job was never recorded. A run stopped between recording a
 * job's end and removing its file leaves the file, and when Redis restarted
 * empty meanwhile nothing delivers that job again; a stop between storing an
 * upload and recording its job leaves a file of no job. A file whose job the
 * read model does not show yet (just uploaded, or still uploading) is left
 * alone for a day.
 */
export async function removeLeftUploads(
  rt: Pick<JobContext['rt'], 'blobs' | 'readStore' | 'eventStore' | 'clock' | 'config'>,
) {
  for (const key of await rt.blobs.list()) {
    const owner = jobOfUpload(key)
    if (!owner) continue
    const job = await rt.readStore.get<JobDoc>(collections.jobs.name, owner.accountId, owner.jobId)
    if (job ? isFinished(job.doc) : await abandoned(rt, owner)) await rt.blobs.remove(key)
  }
}

/** An upload begun a day ago or more (its job id tells when) whose job no stream holds. */
async function abandoned(
  rt: Pick<JobContext['rt'], 'eventStore' | 'clock' | 'config'>,
  { accountId, jobId }: { accountId: number; jobId: number },
) {
  const longest = Math.max(ABANDONED_UPLOAD_MS, rt.config.REQUEST_TIMEOUT_MS)
  if (rt.clock.nowMs() - idTime(jobId).getTime() < longest) return false
  return (await rt.eventStore.readStream(jobStream(accountId, jobId))).length === 0
}
