import { historyEventResource, listOf, orderResource } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { notFound } from '../../shared/domain/errors.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { collections, ORDER_FULL_VIEW } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { Expansion, orderExpandPaths } from '../../projectors/resources/expansion.ts'
import { listPage, pageOf, pageQuery, paginationQuery, whereEqual } from '../shared/pagination.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { dateTimeText } from '../../shared/domain/fields.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { foldOrder } from '../../shared/domain/orders/evolve-document.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { renderOrder } from '../../projectors/resources/render.ts'
import { sendViewList } from '../shared/send-views.ts'
import { expandQuery } from '../shared/expand.ts'
import { delayConditions, delayStatusQuery } from '../shared/delay-filter.ts'
import { checkTimeFilterRules, timeConditions, timeFilter } from './filters.ts'

const expand = expandQuery(orderExpandPaths)

const listOrdersQuery = z.object({
  email: z.string().optional(),
  order_number: z.string().optional(),
  created_at: timeFilter.optional(),
  ordered_at: timeFilter.optional(),
  delay_status: delayStatusQuery,
  expand,
  ...paginationQuery,
})

const ORDERS = collections.orders.name
const orderIdParams = z.object({ id: z.coerce.number().int().positive() })

export function orderReadRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/orders',
    { schema: { querystring: listOrdersQuery, response: { 200: listOf(orderResource) }, summary: 'List orders' } },
    async (request, reply) => {
      const { account } = callerOf(request)
      const q = request.query
      checkTimeFilterRules(q)
      const expansion = Expansion.parse(q.expand, orderExpandPaths)
      const where = [
        ...whereEqual({ email: q.email?.toLowerCase(), order_number: q.order_number }),
        ...timeConditions('created_at', q.created_at),
        ...timeConditions('ordered_at', q.ordered_at),
        ...delayConditions(q.delay_status),
      ]
      await awaitPosition(request, rt, [ORDERS])
      if (expansion.isFull) {
        // Fully expanded orders are kept pre-rendered: the page is joined, never parsed and re-serialised.
        const page = await rt.readStore.findView(ORDERS, pageQuery(account.id, q, where), ORDER_FULL_VIEW)
        const views = page.views.filter((v) => v !== null)
        if (views.length === page.views.length) return sendViewList(reply, views, page.hasMore)
      }
      return listPage(rt.readStore, ORDERS, account.id, q, where, (doc: OrderDoc) => renderOrder(doc, expansion))
    },
  )

  const findOrder = async (accountId: number, id: number) => {
    const found = await rt.readStore.get<OrderDoc>(ORDERS, accountId, id)
    if (!found) throw notFound('Order not found')
    return found
  }

  app.get(
    '/v2/orders/:id',
    {
      schema: {
        params: orderIdParams,
        querystring: z.object({ expand, as_of: dateTimeText.optional() }),
        response: { 200: orderResource },
        summary: 'Retrieve an order, as it is now or as it was at a past time (as_of)',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      const expansion = Expansion.parse(request.query.expand, orderExpandPaths)
      await awaitPosition(request, rt, [ORDERS])
      const found = await findOrder(account.id, request.params.id)
      // as_of=T is the end of second T: everything recorded before T + 1.
      const { as_of } = request.query
      if (as_of === undefined) return renderOrder(found.doc, expansion)
      // The past is folded from the stream itself: every event recorded up to that time.
      const events = await rt.eventStore.readStream(found.key)
      const past = foldOrder(
        asDomainEvents<OrderEvent>(events.filter((e) => e.metadata.recordedAt < (as_of + 1) * 1000)),
      )
      if (!past) throw notFound('The order did not exist at that time')
      return renderOrder(past, expansion)
    },
  )

  app.get(
    '/v2/orders/:id/history',
    {
      schema: {
        params: orderIdParams,
        querystring: z.object(paginationQuery),
        response: { 200: listOf(historyEventResource) },
        summary: "An order's events, newest first",
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [ORDERS])
      const found = await findOrder(account.id, request.params.id)
      const { limit, starting_after, ending_before } = request.query
      // A history entry's id is its revision in the order's stream, counted from 1.
      const entries = (await rt.eventStore.readStream(found.key)).map((e) => ({
        object: 'history_event' as const,
        id: e.revision + 1,
        type: e.type,
        recorded_at: toUnixSeconds(e.metadata.recordedAt),
        data: e.data as Record<string, unknown>,
      }))
      return pageOf(entries, { limit, startingAfter: starting_after, endingBefore: ending_before })
    },
  )
}
