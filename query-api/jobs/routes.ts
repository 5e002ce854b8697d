import { jobResource } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { notFound } from '../../shared/domain/errors.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import {
  renderJob,
  renderJobJson,
  resultItemsJson,
  type JobDoc,
  type JobResultsDoc,
} from '../../projectors/jobs/job.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { waitForProjections } from '../../shared/infra/read-store/wait-for-projections.ts'
import { viewBytesOf, type ViewBytes } from '../../shared/infra/read-store/port.ts'
import { joinViews, sendJsonStream } from '../shared/send-views.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'

const JOB_RESULTS = collections.job_results.name
/** Result chunks read at a time as a completed job's answer is sent: ~1 MB of a large import's results (chunks of 500), never all of them. */
const CHUNKS_PER_READ = 20

/**
 * A job's results in file order (chunk ids grow with each chunk), as JSON
 * array items, read a few chunks at a time and sent as one buffer per read.
 */
async function* resultItems(rt: Runtime, accountId: number, jobId: number): AsyncGenerator<Uint8Array> {
  const where = [{ field: 'job_id', op: 'eq' as const, value: jobId }]
  for (let after = 0; ; ) {
    const query = { accountId, where, startingAfter: after, limit: CHUNKS_PER_READ }
    // Pages come newest first, whichever way they are read.
    const page = await rt.readStore.findView(JOB_RESULTS, query, 'results')
    const views = page.views.every((v) => v !== null)
      ? (page.views as ViewBytes[])
      : // Chunks projected before the view existed are rendered from their documents.
        (await rt.readStore.find<JobResultsDoc>(JOB_RESULTS, query)).docs.map((c) =>
          viewBytesOf(Buffer.from(resultItemsJson(c.doc.results))),
        )
    yield joinViews(views.reverse())
    if (!page.hasMore) return
    after = page.ids[0]!
  }
}

export function jobReadRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/jobs/:job_id',
    {
      schema: {
        params: z.object({ job_id: z.coerce.number().int().positive() }),
        response: { 200: jobResource },
        summary: 'Retrieve a job',
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [collections.jobs.name, JOB_RESULTS])
      const found = await rt.readStore.get<JobDoc>(collections.jobs.name, account.id, request.params.job_id)
      if (!found) throw notFound('Job not found')
      if (found.doc.status !== 'completed') return renderJob(found.doc)
      // The results are another projection: let it reach the point where this job was seen completed.
      const seenAt = (await rt.readStore.checkpoint(collections.jobs.name)) ?? 0n
      await waitForProjections(rt.readStore, [JOB_RESULTS], seenAt, rt.config.CONSISTENCY_WAIT_MS)
      const items = () => resultItems(rt, account.id, found.doc.id)
      return sendJsonStream(reply, renderJobJson(found.doc, items))
    },
  )
}
