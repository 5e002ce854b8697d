import { decideJob, jobStream } from '../../shared/domain/jobs/job.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { commandRequest, executeCommand, metadataFor, sendCommandResponse, toNewEvents } from '../execute.ts'
import { batchCreateBody, orderBody } from './schema.ts'
import { ORDERS_PATH, planOrderUpsert } from './upsert.ts'

const BATCH_PATH = `${ORDERS_PATH}/batch_create`

export function orderRoutes(app: App, rt: Runtime, queue: JobQueue) {
  app.post(
    ORDERS_PATH,
    {
      schema: { body: orderBody, summary: 'Create or update one order with its fulfillments, trackers and line items' },
    },
    async (request, reply) => {
      const command = commandRequest(request)
      const { account } = callerOf(request)
      const response = await executeCommand(rt, command, async () => {
        const plan = await planOrderUpsert(rt, account, request.body, (at) => metadataFor(command, at))
        return { appends: [plan.append], status: plan.status, body: plan.body, readPosition: plan.readPosition }
      })
      return sendCommandResponse(reply, response)
    },
  )

  app.post(
    BATCH_PATH,
    { schema: { body: batchCreateBody, summary: 'Create or update up to 100 orders (a job)' } },
    async (request, reply) => {
      const { account } = callerOf(request)
      const jobId = rt.ids.next()
      const now = rt.clock.now()
      const queued = {
        job_id: jobId,
        type: 'orders.batch_create' as const,
        payload: { method: 'POST', url: BATCH_PATH, body: request.body },
        at: toUnixSeconds(now),
      }
      const command = commandRequest(request)
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
        body: { job_id: jobId },
        readPosition: 0n,
      }))
      const job = (response.body as { job_id: number }).job_id
      // The job is safe in its stream; while Redis is away, the worker's sweep enqueues it when Redis is back.
      await queue
        .enqueue({ accountId: account.id, jobId: job })
        .catch((error) => request.log.warn({ err: error }, 'enqueue failed; left to the sweep'))
      reply.header('location', `/v2/jobs/${job}`)
      return sendCommandResponse(reply, response)
    },
  )
}
