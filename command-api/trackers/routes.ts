import { z } from 'zod'
import type { PollQueues } from '../../reactions/polls/poller.ts'
import { queueRefresh } from '../../reactions/polls/refresh.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { executeCommand } from '../../commands/execute.ts'
import { commandRequest, sendCommandResponse } from '../command-request.ts'
import { planTrackingEvents, trackingEventsBody, trackingEventsResponse } from '../../commands/trackers/events.ts'
import { upsertTrackersBody, upsertTrackersResponse } from '../../commands/trackers/schema.ts'
import { trackerRefresh } from '../../projectors/resources/schemas.ts'
import { createOrderStates, planTrackerUpserts } from '../../commands/trackers/upsert.ts'

export function trackerWriteRoutes(app: App, rt: Runtime, polls: PollQueues) {
  const orders = createOrderStates(rt.config.ORDER_CACHE_SIZE, rt.config.ORDER_CACHE_MB)
  app.post(
    '/v1/trackers',
    {
      bodyLimit: rt.config.BODY_LIMIT,
      schema: {
        body: upsertTrackersBody,
        response: { 201: upsertTrackersResponse },
        summary: 'Batch create or update trackers',
      },
    },
    async (request, reply) => {
      const command = commandRequest(request)
      const response = await executeCommand(rt, command, planTrackerUpserts(rt, orders, command, request.body.trackers))
      return sendCommandResponse(reply, response)
    },
  )
  app.post(
    '/v2/trackers/events',
    {
      bodyLimit: rt.config.BODY_LIMIT,
      schema: {
        body: trackingEventsBody,
        response: { 201: trackingEventsResponse },
        summary: 'Record carrier tracking events on the trackers they concern',
      },
    },
    async (request, reply) => {
      const command = commandRequest(request)
      const response = await executeCommand(rt, command, planTrackingEvents(rt, orders, command, request.body.events))
      return sendCommandResponse(reply, response)
    },
  )
  app.post(
    '/v2/trackers/:id/refresh',
    {
      schema: {
        params: z.object({
          id: z.coerce
            .number()
            .int('must be an integer id')
            .positive('must be a positive id')
            .max(Number.MAX_SAFE_INTEGER),
        }),
        response: { 202: trackerRefresh },
        summary: "Ask the tracker's carrier for news now (carriers with a configured tracking API)",
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const { id } = request.params
      const refresh = await queueRefresh(rt, polls, account.id, id, toUnixSeconds(rt.clock.now()))
      if ('refused' in refresh) {
        if (refresh.retryAfter !== undefined) reply.header('retry-after', String(refresh.retryAfter))
        throw refresh.refused
      }
      return reply.status(202).send({ object: 'tracker_refresh', tracker_id: id, status: 'queued' })
    },
  )
}
