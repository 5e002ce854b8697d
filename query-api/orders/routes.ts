import { z } from 'zod'
import { notFound } from '../../shared/errors.ts'
import { callerOf } from '../../shared/http/auth.ts'
import { awaitPosition } from '../../shared/http/consistency.ts'
import type { App } from '../../shared/http/server.ts'
import type { OrderDoc } from '../../shared/orders/document.ts'
import { collections } from '../../shared/read-models.ts'
import type { Condition } from '../../shared/read-store/port.ts'
import type { Runtime } from '../../shared/runtime.ts'
import { Expansion } from '../shared/expansion.ts'
import { listEnvelope, paginationQuery } from '../shared/pagination.ts'
import { renderOrder } from '../shared/resources.ts'
import { checkTimeFilterRules, timeConditions, timeFilter } from './filters.ts'

/** The nine expand[] paths of GET /v2/orders. */
export const orderExpandPaths = [
  'shipping_address',
  'line_items',
  'notifications.notification_payloads',
  'notifications.notification_type',
  'fulfillments.trackers.line_items',
  'fulfillments.trackers.events.address',
  'fulfillments.trackers.carrier',
  'fulfillments.shipping_address',
  'fulfillments.line_items',
] as const

const expand = z.union([z.string(), z.array(z.string())]).optional()

const listOrdersQuery = z.object({
  email: z.string().optional(),
  order_number: z.string().optional(),
  created_at: timeFilter.optional(),
  ordered_at: timeFilter.optional(),
  expand,
  ...paginationQuery,
})

const ORDERS = collections.orders.name

export function orderRoutes(app: App, rt: Runtime) {
  app.get('/v2/orders', { schema: { querystring: listOrdersQuery, summary: 'List orders' } }, async (request) => {
    const { account } = callerOf(request)
    const q = request.query
    checkTimeFilterRules(q)
    const expansion = Expansion.parse(q.expand, orderExpandPaths)
    const where: Condition[] = [
      ...(q.email !== undefined ? [{ field: 'email', op: 'eq' as const, value: q.email }] : []),
      ...(q.order_number !== undefined ? [{ field: 'order_number', op: 'eq' as const, value: q.order_number }] : []),
      ...timeConditions('created_at', q.created_at),
      ...timeConditions('ordered_at', q.ordered_at),
    ]
    await awaitPosition(request, rt, [ORDERS])
    const page = await rt.readStore.find<OrderDoc>(ORDERS, {
      accountId: account.id,
      where,
      startingAfter: q.starting_after,
      endingBefore: q.ending_before,
      limit: q.limit,
    })
    return listEnvelope(page, (doc) => renderOrder(doc, expansion))
  })

  app.get(
    '/v2/orders/:id',
    {
      schema: {
        params: z.object({ id: z.coerce.number().int().positive() }),
        querystring: z.object({ expand }),
        summary: 'Retrieve an order',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      const expansion = Expansion.parse(request.query.expand, orderExpandPaths)
      await awaitPosition(request, rt, [ORDERS])
      const found = await rt.readStore.get<OrderDoc>(ORDERS, account.id, request.params.id)
      if (!found) throw notFound('Order not found')
      return renderOrder(found.doc, expansion)
    },
  )
}
