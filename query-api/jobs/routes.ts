import { Readable } from 'node:stream'
import { z } from 'zod'
import { notFound } from '../../shared/errors.ts'
import { callerOf } from '../../shared/http/auth.ts'
import { awaitPosition } from '../../shared/http/consistency.ts'
import type { App } from '../../shared/http/server.ts'
import { renderJob, renderJobJson, type JobDoc, type JobResultsDoc } from '../../shared/jobs/job.ts'
import { collections } from '../../shared/read-models.ts'
import { waitForProjections } from '../../shared/read-store/consistency.ts'
import { bufferOf } from '../../shared/read-store/port.ts'
import type { Runtime } from '../../shared/runtime.ts'

/** Result chunks of one job read at once: 10,000 chunks of 1,000 rows is ten million rows. */
const MAX_CHUNKS = 10_000

export function jobRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/jobs/:job_id',
    { schema: { params: z.object({ job_id: z.coerce.number().int().positive() }), summary: 'Retrieve a job' } },
    async (request, reply) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [collections.jobs.name, collections.job_results.name])
      const found = await rt.readStore.get<JobDoc>(collections.jobs.name, account.id, request.params.job_id)
      if (!found) throw notFound('Job not found')
      if (found.doc.status !== 'completed') return renderJob(found.doc)
      // The results are another projection: let it reach the point where this job was seen completed.
      const seenAt = (await rt.readStore.checkpoint(collections.jobs.name)) ?? 0n
      await waitForProjections(rt.readStore, [collections.job_results.name], seenAt, rt.config.CONSISTENCY_WAIT_MS)
      const query = { accountId: account.id, where: [{ field: 'job_id', op: 'eq' as const, value: found.doc.id }], limit: MAX_CHUNKS }
      // Chunks come newest first. Their results are kept pre-serialised: joined, never parsed.
      const page = await rt.readStore.findView(collections.job_results.name, query, 'results')
      const views = page.views.filter((v) => v !== null)
      if (views.length === page.views.length) {
        return reply.type('application/json; charset=utf-8').send(Readable.from(renderJobJson(found.doc, views.reverse().map(bufferOf))))
      }
      // Chunks projected before the view existed are rendered from their documents.
      const chunks = await rt.readStore.find<JobResultsDoc>(collections.job_results.name, query)
      return renderJob(found.doc, chunks.docs.reverse().flatMap((c) => c.doc.results))
    },
  )
}
