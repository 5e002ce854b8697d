import { listOf, trackerResource } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { expandQuery } from '../shared/expand.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { trackersOf } from '../../projectors/orders/tracker-index.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { Expansion, trackerExpandPaths } from '../../projectors/resources/expansion.ts'
import { listEnvelope, pageQuery, paginationQuery, whereEqual } from '../shared/pagination.ts'
import { renderTracker } from '../../projectors/resources/render.ts'
import { delayConditions, delayStatusQuery } from '../shared/delay-filter.ts'

const listTrackersQuery = z.object({
  tracking_number: z.string().optional(),
  delivery_status_code: z.string().optional(),
  delay_status: delayStatusQuery,
  expand: expandQuery(trackerExpandPaths),
  ...paginationQuery,
})

const TRACKERS = collections.trackers.name

export function trackerReadRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/trackers',
    {
      schema: { querystring: listTrackersQuery, response: { 200: listOf(trackerResource) }, summary: 'List trackers' },
    },
    async (request) => {
      const { account } = callerOf(request)
      const q = request.query
      const expansion = Expansion.parse(q.expand, trackerExpandPaths)
      const where = [
        ...whereEqual({ tracking_number: q.tracking_number, delivery_status_code: q.delivery_status_code }),
        ...delayConditions(q.delay_status),
      ]
      await awaitPosition(request, rt, [TRACKERS, collections.orders.name])
      // The index finds the page; each tracker is read from its order's document.
      const page = await rt.readStore.find(TRACKERS, pageQuery(account.id, q, where))
      const trackers = await trackersOf(rt.readStore, page.docs)
      return listEnvelope(
        trackers.map((t) => renderTracker(t, expansion, '')),
        page.hasMore,
      )
    },
  )
}
