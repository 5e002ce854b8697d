import { evolveJob, renderJob } from '../../projectors/jobs/job.ts'
import type { EventData } from '../../shared/domain/events/index.ts'
import { decideJob, jobStream } from '../../shared/domain/jobs/job.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type CommandRequest, type CommandResponse, executeCommand, metadataFor, toNewEvents } from '../execute.ts'

/**
 * Accepts a job: records `JobQueued` on the job's own stream (through the
 * command path, so a repeat with the same Idempotency-Key answers the first
 * job) and queues it on BullMQ. The job is safe in its stream: while Redis is
 * away, the worker's sweep queues it when Redis is back. Gives the id
 * answered (the first job's, on a repeat) and the `202` to send, whose body is
 * the job itself, or `{"job_id": N}` (`answer: 'job_id'`).
 */
export async function acceptJob(
  rt: Runtime,
  queue: JobQueue,
  command: CommandRequest,
  /** `job_id` when the caller allocated it already (an upload stored under it). */
  job: Omit<EventData<'JobQueued'>, 'job_id' | 'at'> & { job_id?: number },
  answer: 'job' | 'job_id' = 'job',
  log: { warn(context: object, message: string): void },
): Promise<{ jobId: number; response: CommandResponse }> {
  const { account } = command
  const jobId = job.job_id ?? rt.ids.next()
  const now = rt.clock.now()
  const queued = { ...job, job_id: jobId, at: toUnixSeconds(now) }
  const response = await executeCommand(rt, command, async () => ({
    appends: [
      {
        stream: jobStream(account.id, jobId),
        expected: 'no_stream',
        events: toNewEvents(
          decideJob({ type: 'QueueJob', data: queued }, undefined),
          metadataFor(command, now.getTime()),
        ),
      },
    ],
    status: 202,
    body: answer === 'job' ? renderJob(evolveJob(undefined, { type: 'JobQueued', data: queued })) : { job_id: jobId },
    readPosition: 0n,
  }))
  const body = response.body as { id?: number; job_id?: number }
  const answered = (body.id ?? body.job_id)!
  await queue
    .enqueue({ accountId: account.id, jobId: answered })
    .catch((error) => log.warn({ err: error }, 'enqueue failed; left to the sweep'))
  return { jobId: answered, response }
}
