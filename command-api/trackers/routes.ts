import { z } from 'zod'
import { type TrackerIndexDoc, trackersOf } from '../../projectors/orders/tracker-index.ts'
import type { PollQueues } from '../../reactions/polls/poller.ts'
import { trackingApiOf } from '../../shared/domain/carriers/tracking-apis.ts'
import { MAX_POLLS_PER_DAY, pollsSpentOn } from '../../shared/domain/orders/polling.ts'
import { nextUtcDay, toUnixSeconds } from '../../shared/domain/time.ts'
import { notFound, ShiplogError } from '../../shared/domain/errors.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
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
      const entry = await rt.readStore.get<TrackerIndexDoc>(collections.trackers.name, account.id, id)
      const [tracker] = entry ? await trackersOf(rt.readStore, [entry]) : []
      if (!entry || !tracker) throw notFound('Tracker not found')
      const carrier = tracker.carrier?.code
      const api = carrier ? trackingApiOf[carrier] : undefined
      const queue = api && polls.get(api)
      if (!queue) {
        throw new ShiplogError(
          'SHIPLOG_ERR_CONFLICT',
          carrier
            ? `Carrier ${carrier} is not polled: its tracking API is not configured on this service`
            : 'The tracker has no carrier to poll',
        )
      }
      const poll = entry.doc.poll
      if (!poll || poll.next_poll_at === null) {
        throw new ShiplogError('SHIPLOG_ERR_CONFLICT', 'The tracker is final (or not followed yet): it is not polled')
      }
      const now = toUnixSeconds(rt.clock.now())
      if (pollsSpentOn(poll, now)) {
        reply.header('retry-after', String(nextUtcDay(now) - now))
        throw new ShiplogError(
          'SHIPLOG_ERR_RATE_LIMITED',
          `The tracker was polled ${MAX_POLLS_PER_DAY} times today, the most a day; it is polled again tomorrow (UTC)`,
        )
      }
      if (!(await queue.enqueue({ accountId: account.id, key: entry.key, refresh: true }).catch(() => false))) {
        throw new ShiplogError('SHIPLOG_ERR_UNAVAILABLE', 'The job queue is unavailable: try again shortly')
      }
      return reply.status(202).send({ object: 'tracker_refresh', tracker_id: id, status: 'queued' })
    },
  )
}
