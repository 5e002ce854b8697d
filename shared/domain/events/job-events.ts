import { z } from 'zod'

const at = z.number().int()

/** One result per sub-request of a job, in payload order (CSV rows in file order). */
export const jobResult = z.object({ status: z.number().int(), body: z.record(z.string(), z.unknown()) })
export type JobResult = z.infer<typeof jobResult>

/**
 * Events of a job stream (`job-<accountId>_<jobId>`). Results arrive in
 * chunks, each appended atomically with the changes it made, so a job resumed
 * after a crash knows exactly which items are done and applies none twice.
 */
export const jobEvents = {
  JobQueued: z.object({
    job_id: z.number().int(),
    type: z.enum(['pickup_points.import', 'webhook_endpoints.replay', 'orders.batch_create', 'connections.backfill']),
    payload: z.object({ method: z.string(), url: z.string(), body: z.record(z.string(), z.unknown()) }),
    /** The uploaded file, in the blob store. */
    blob: z.string().optional(),
    at,
  }),
  JobStarted: z.object({ at }),
  /** `chunk_id` is the id of the chunk's results document in the read model. */
  JobItemsProcessed: z.object({ chunk_id: z.number().int(), results: z.array(jobResult), at }),
  JobCompleted: z.object({ at }),
  JobFailed: z.object({ error: z.string(), at }),
} as const
