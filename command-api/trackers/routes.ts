import type { App } from '../../shared/infra/http/server.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { commandRequest, executeCommand, sendCommandResponse } from '../execute.ts'
import { planTrackingEvents, trackingEventsBody } from './events.ts'
import { upsertTrackersBody } from './schema.ts'
import { createOrderStates, planTrackerUpserts } from './upsert.ts'

export function trackerRoutes(app: App, rt: Runtime) {
  const orders = createOrderStates(rt.config.ORDER_CACHE_SIZE)
  app.post(
    '/v1/trackers',
    { schema: { body: upsertTrackersBody, summary: 'Batch create or update trackers' } },
    async (request, reply) => {
      const command = commandRequest(request)
      const response = await executeCommand(rt, command, planTrackerUpserts(rt, orders, command, request.body.trackers))
      return sendCommandResponse(reply, response)
    },
  )
  app.post(
    '/v2/trackers/events',
    { schema: { body: trackingEventsBody, summary: 'Record carrier tracking events on the trackers they concern' } },
    async (request, reply) => {
      const command = commandRequest(request)
      const response = await executeCommand(rt, command, planTrackingEvents(rt, orders, command, request.body.events))
      return sendCommandResponse(reply, response)
    },
  )
}
