import { z } from 'zod'
import { callerOf } from '../../shared/http/auth.ts'
import { awaitPosition } from '../../shared/http/consistency.ts'
import type { App } from '../../shared/http/server.ts'
import type { TrackerDoc } from '../../shared/orders/document.ts'
import { collections } from '../../shared/read-models.ts'
import type { Condition } from '../../shared/read-store/port.ts'
import type { Runtime } from '../../shared/runtime.ts'
import { Expansion } from '../shared/expansion.ts'
import { listEnvelope, paginationQuery } from '../shared/pagination.ts'
import { renderTracker } from '../shared/resources.ts'

export const trackerExpandPaths = ['carrier', 'events', 'events.address', 'line_items'] as const

const listTrackersQuery = z.object({
  tracking_number: z.string().optional(),
  delivery_status_code: z.string().optional(),
  expand: z.union([z.string(), z.array(z.string())]).optional(),
  ...paginationQuery,
})

const TRACKERS = collections.trackers.name

export function trackerRoutes(app: App, rt: Runtime) {
  app.get('/v2/trackers', { schema: { querystring: listTrackersQuery, summary: 'List trackers' } }, async (request) => {
    const { account } = callerOf(request)
    const q = request.query
    const expansion = Expansion.parse(q.expand, trackerExpandPaths)
    const where: Condition[] = []
    if (q.tracking_number !== undefined) where.push({ field: 'tracking_number', op: 'eq', value: q.tracking_number })
    if (q.delivery_status_code !== undefined) where.push({ field: 'delivery_status_code', op: 'eq', value: q.delivery_status_code })
    await awaitPosition(request, rt, [TRACKERS])
    const page = await rt.readStore.find<TrackerDoc>(TRACKERS, {
      accountId: account.id,
      where,
      startingAfter: q.starting_after,
      endingBefore: q.ending_before,
      limit: q.limit,
    })
    return listEnvelope(page, (doc) => renderTracker(doc, expansion, ''))
  })
}
