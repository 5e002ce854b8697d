import { ShiplogError } from '../errors.ts'
import { assertNever, type DomainEvent, type EventData } from '../events/index.ts'
import type { JobResult, jobEvents } from '../events/job-events.ts'

export type JobEvent = Extract<DomainEvent, { type: keyof typeof jobEvents }>
export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed'

/** A job as its worker resumes it: what it is, where it stands, how many items are done. */
export interface JobState {
  id: number
  type: EventData<'JobQueued'>['type']
  status: JobStatus
  blob: string | null
  /** Items with a recorded result: a resumed job skips them. */
  items_processed: number
}

export const jobStream = (accountId: number, jobId: number) => `job-${accountId}_${jobId}`
export const jobIdOf = (stream: string) => Number(stream.slice(stream.lastIndexOf('_') + 1))

/** Where a job's uploaded file is kept, and the job a kept file belongs to (undefined: not an upload's key). */
export const uploadKey = (accountId: number, jobId: number) => `${accountId}/${jobId}.csv`
export function jobOfUpload(key: string): { accountId: number; jobId: number } | undefined {
  const match = /^(\d+)\/(\d+)\.csv$/.exec(key)
  return match ? { accountId: Number(match[1]), jobId: Number(match[2]) } : undefined
}

export type JobCommand =
  | { type: 'QueueJob'; data: EventData<'JobQueued'> }
  | { type: 'StartJob'; at: number }
  | { type: 'RecordItems'; chunk_id: number; results: JobResult[]; at: number }
  | { type: 'CompleteJob'; at: number }
  | { type: 'FailJob'; error: string; at: number }

export const isFinished = (job: Pick<JobState, 'status'>) => job.status === 'completed' || job.status === 'failed'

/**
 * A job is queued once, starts once (a resumed job is already started),
 * records items only while it runs, and ends once: completed or failed. A
 * command that comes after the end changes nothing, so a worker that repeats
 * one after a crash appends nothing twice.
 */
export function decideJob(command: JobCommand, state: JobState | undefined): JobEvent[] {
  if (command.type === 'QueueJob') {
    if (state) throw new ShiplogError('SHIPLOG_ERR_CONFLICT', `Job ${state.id} is already queued`)
    return [{ type: 'JobQueued', data: command.data }]
  }
  if (!state) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Job not found')
  if (isFinished(state)) return []
  switch (command.type) {
    case 'StartJob':
      return state.status === 'queued' ? [{ type: 'JobStarted', data: { at: command.at } }] : []
    case 'RecordItems':
      if (state.status !== 'processing') {
        throw new ShiplogError('SHIPLOG_ERR_CONFLICT', `Job ${state.id} records items only while processing`)
      }
      return [
        { type: 'JobItemsProcessed', data: { chunk_id: command.chunk_id, results: command.results, at: command.at } },
      ]
    case 'CompleteJob':
      return [{ type: 'JobCompleted', data: { at: command.at } }]
    case 'FailJob':
      return [{ type: 'JobFailed', data: { error: command.error, at: command.at } }]
    default:
      return assertNever(command)
  }
}

export function evolveJobState(state: JobState | undefined, event: JobEvent): JobState {
  if (event.type === 'JobQueued') {
    const { job_id, type, blob } = event.data
    return { id: job_id, type, status: 'queued', blob: blob ?? null, items_processed: 0 }
  }
  if (!state) throw new Error(`${event.type} before JobQueued`)
  switch (event.type) {
    case 'JobStarted':
      return { ...state, status: 'processing' }
    case 'JobItemsProcessed':
      return { ...state, items_processed: state.items_processed + event.data.results.length }
    case 'JobCompleted':
      return { ...state, status: 'completed' }
    case 'JobFailed':
      return { ...state, status: 'failed' }
    default:
      return assertNever(event)
  }
}

export const foldJobState = (events: readonly JobEvent[]) =>
  events.reduce<JobState | undefined>(evolveJobState, undefined)
