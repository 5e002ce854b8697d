import { z } from 'zod'
import { notFound } from '../../shared/errors.ts'
import { callerOf } from '../../shared/http/auth.ts'
import { awaitPosition } from '../../shared/http/consistency.ts'
import type { App } from '../../shared/http/server.ts'
import { renderJob, type JobDoc } from '../../shared/jobs/job.ts'
import { collections } from '../../shared/read-models.ts'
import type { Runtime } from '../../shared/runtime.ts'

export function jobRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/jobs/:job_id',
    { schema: { params: z.object({ job_id: z.coerce.number().int().positive() }), summary: 'Retrieve a job' } },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [collections.jobs.name])
      const found = await rt.readStore.get<JobDoc>(collections.jobs.name, account.id, request.params.job_id)
      if (!found) throw notFound('Job not found')
      return renderJob(found.doc)
    },
  )
}
