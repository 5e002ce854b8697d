import type { z } from 'zod'
import type { jobResource } from '../resources/schemas.ts'
import { assertNever, type EventData } from '../../shared/domain/events/index.ts'
import type { JobResult } from '../../shared/domain/events/job-events.ts'
import type { JobEvent, JobStatus } from '../../shared/domain/jobs/job.ts'

/** A job as GET /v2/jobs/{id} shows it. */
export interface JobDoc {
  id: number
  type: EventData<'JobQueued'>['type']
  status: JobStatus
  queued_at: number
  processed_at: number | null
  completed_at: number | null
  failed_at: number | null
  error: string | null
  payload: EventData<'JobQueued'>['payload']
  blob: string | null
  /** Items with a recorded result; their results are kept in chunks beside the job (job_results). */
  items_processed: number
}

export function evolveJob(job: JobDoc | undefined, event: JobEvent): JobDoc {
  if (event.type === 'JobQueued') {
    const d = event.data
    return {
      id: d.job_id,
      type: d.type,
      status: 'queued',
      queued_at: d.at,
      processed_at: null,
      completed_at: null,
      failed_at: null,
      error: null,
      payload: d.payload,
      blob: d.blob ?? null,
      items_processed: 0,
    }
  }
  if (!job) throw new Error(`${event.type} before JobQueued`)
  switch (event.type) {
    case 'JobStarted':
      return { ...job, status: 'processing', processed_at: job.processed_at ?? event.data.at }
    case 'JobItemsProcessed':
      return { ...job, items_processed: job.items_processed + event.data.results.length }
    case 'JobCompleted':
      return { ...job, status: 'completed', completed_at: event.data.at }
    case 'JobFailed':
      return { ...job, status: 'failed', failed_at: event.data.at, error: event.data.error }
    default:
      return assertNever(event)
  }
}

/** One chunk of a job's results, as the job_results read model keeps it. */
export interface JobResultsDoc {
  /** The chunk's id: chunks of one job are in file order by id. */
  id: number
  job_id: number
  results: JobResult[]
}

/** A chunk's results as JSON array items (the job_results `results` view): joined with commas, they are the job's `results`. */
export const resultItemsJson = (results: readonly JobResult[]) => JSON.stringify(results).slice(1, -1)

/** The job resource: `results` (all chunks, in order) only once completed, `failed_at`/`error` only when failed. */
export function renderJob(job: JobDoc, results: readonly JobResult[] = []): z.output<typeof jobResource> {
  return {
    object: 'job',
    id: job.id,
    status: job.status,
    queued_at: job.queued_at,
    processed_at: job.processed_at,
    completed_at: job.completed_at,
    ...(job.status === 'completed' ? { results } : {}),
    ...(job.status === 'failed' ? { failed_at: job.failed_at, error: { message: job.error } } : {}),
    payload: job.payload,
  }
}

/**
 * The job resource as JSON, in pieces to be streamed: its results are the
 * chunks' pre-serialised items (the job_results `results` view, in file order,
 * as UTF-8 bytes), so a job of 100,000 rows is answered without parsing,
 * re-serialising or even concatenating its results. They are read only for a
 * completed job, as the answer is sent.
 */
export async function* renderJobJson(
  job: JobDoc,
  resultItems: () => AsyncIterable<Uint8Array>,
): AsyncGenerator<string | Uint8Array> {
  const json = JSON.stringify(renderJob(job, []))
  // Only scalar fields come before `results`, so its first occurrence is the resource's own key.
  const at = job.status === 'completed' ? json.indexOf('"results":[]') : -1
  if (at < 0) return yield json
  yield `${json.slice(0, at)}"results":[`
  let first = true
  for await (const items of resultItems()) {
    if (items.length === 0) continue
    if (!first) yield ','
    yield items
    first = false
  }
  yield json.slice(at + '"results":['.length)
}
