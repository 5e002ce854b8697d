import { z } from 'zod'
import { acceptedJobId, orderResource, trackingLinkResource } from '../../projectors/resources/schemas.ts'
import { planTrackingLinkRotation } from '../../commands/orders/rotate-tracking-link.ts'
import { trackingTokens } from '../../shared/infra/tracking-tokens.ts'
import { publicUrlOf } from '../../shared/infra/http/public-url.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { ORDER_BODY_LIMIT } from '../../shared/infra/http/body-limits.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { executeCommand, metadataFor } from '../../commands/execute.ts'
import { acceptJobRequest, commandRequest, pathCalled, sendCommandResponse } from '../command-request.ts'
import { batchCreateBody, orderBody } from '../../commands/orders/schema.ts'
import { ORDERS_PATH, planOrderUpsert } from '../../commands/orders/upsert.ts'

const BATCH_PATH = `${ORDERS_PATH}/batch_create`

export function orderWriteRoutes(app: App, rt: Runtime, queue: JobQueue) {
  app.post(
    ORDERS_PATH,
    {
      bodyLimit: Math.min(ORDER_BODY_LIMIT, rt.config.BODY_LIMIT),
      schema: {
        body: orderBody,
        response: { 200: orderResource, 201: orderResource },
        summary: 'Create or update one order with its fulfillments, trackers and line items',
      },
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

  const tokens = trackingTokens(rt.secrets)
  app.post(
    '/v2/orders/:id/tracking_link/rotate',
    {
      schema: {
        params: z.object({ id: z.coerce.number().int().positive() }),
        response: { 200: trackingLinkResource },
        summary: 'Give the order’s tracking page a new address: every earlier link stops working',
      },
    },
    async (request, reply) => {
      const command = commandRequest(request)
      const link = { tokens, baseUrl: publicUrlOf(rt, request) }
      const response = await executeCommand(rt, command, () =>
        planTrackingLinkRotation(rt, command, request.params.id, link),
      )
      return sendCommandResponse(reply, response)
    },
  )

  app.post(
    BATCH_PATH,
    {
      bodyLimit: rt.config.BODY_LIMIT,
      schema: {
        body: batchCreateBody,
        response: { 202: acceptedJobId },
        summary: 'Create or update up to 100 orders (a job)',
      },
    },
    async (request, reply) => {
      const job = {
        type: 'orders.batch_create' as const,
        payload: { method: 'POST', url: pathCalled(request), body: request.body },
      }
      return (await acceptJobRequest(rt, queue, request, job, 'job_id')).send(reply)
    },
  )
}
