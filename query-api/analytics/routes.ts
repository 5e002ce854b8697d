import { z } from 'zod'
import { performanceBetween, performanceCsv } from '../../projectors/deliveries/performance.ts'
import { isCalendarDate } from '../../shared/domain/delivery/calendar.ts'
import {
  type PerformanceGroup,
  performanceGroups,
  type PerformanceRow,
} from '../../shared/domain/delivery/performance.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'

/*
 * GET /v2/analytics/delivery_performance (and .csv): how the account's
 * carriers perform over the parcels that ended between two dates, from the
 * delivery history's daily sums; answered without reading a parcel.
 */

/** The longest period one request sums: two years of days. */
const MAX_DAYS = 731
const date = z.string().refine(isCalendarDate, 'must be a date YYYY-MM-DD')
const query = z
  .object({
    from: date,
    to: date,
    group_by: z
      .preprocess(
        (v) => (v === undefined ? [] : Array.isArray(v) ? v : String(v).split(',')),
        z.array(z.enum(performanceGroups, { error: `must be among ${performanceGroups.join(', ')}` })).max(4),
      )
      .refine((list) => new Set(list).size === list.length, 'must name each group once')
      .default([])
      .describe(
        'Groups of the rows, comma-separated or repeated: carrier, service, destination_country, week; none, one row',
      ),
    limit: z.coerce.number().int().min(1, 'must be from 1 to 1000').max(1000, 'must be from 1 to 1000').default(100),
    starting_after: z.string().max(500).optional().describe('The `key` of the last row of the page before'),
  })
  .refine((q) => q.from <= q.to, { message: 'must not be after to', path: ['from'] })
  .refine((q) => (Date.parse(q.to) - Date.parse(q.from)) / 86_400_000 < MAX_DAYS, {
    message: `must be at most ${MAX_DAYS} days before to`,
    path: ['from'],
  })

const rate = z.number().nullable()
const performanceRow = z
  .object({
    object: z.literal('delivery_performance'),
    key: z.string().meta({ description: 'The group’s values joined by |: the cursor of starting_after' }),
    group: z.object(Object.fromEntries(performanceGroups.map((g) => [g, z.string().nullable().optional()]))),
    delivered: z.number().int(),
    returned: z.number().int(),
    transit_business_days: z.object({ p50: z.number().int().nullable(), p90: z.number().int().nullable() }),
    on_time_rate: rate.meta({
      description: 'Of the delivered parcels promised a date when they shipped, the share on time',
    }),
    failed_attempt_rate: rate,
    exception_rate: rate,
    returned_rate: rate,
  })
  .meta({ id: 'DeliveryPerformance' })
const performanceList = z
  .object({ object: z.literal('list'), data: z.array(performanceRow), has_more: z.boolean() })
  .meta({ id: 'DeliveryPerformanceList' })

export function analyticsReadRoutes(app: App, rt: Runtime) {
  const rowsFor = (accountId: number, q: z.output<typeof query>) =>
    performanceBetween(rt, accountId, q, q.group_by as PerformanceGroup[])
  const pageOf = (rows: PerformanceRow[], q: z.output<typeof query>) => {
    const after = q.starting_after
    const start = after === undefined ? 0 : rows.findIndex((r) => r.key > after)
    const rest = start === -1 ? [] : rows.slice(start)
    return { rows: rest.slice(0, q.limit), hasMore: rest.length > q.limit }
  }

  app.get(
    '/v2/analytics/delivery_performance',
    {
      schema: {
        querystring: query,
        response: { 200: performanceList },
        summary: 'How the carriers perform: parcels delivered between two dates, grouped as asked',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      const { rows, hasMore } = pageOf(await rowsFor(account.id, request.query), request.query)
      return {
        object: 'list' as const,
        data: rows.map((r) => ({ object: 'delivery_performance' as const, ...r })),
        has_more: hasMore,
      }
    },
  )

  app.get(
    '/v2/analytics/delivery_performance.csv',
    {
      schema: {
        querystring: query,
        response: { 200: z.string().meta({ description: 'The same rows as CSV, a header line first' }) },
        summary: 'The delivery performance as CSV',
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const groups = request.query.group_by as PerformanceGroup[]
      const csv = performanceCsv(await rowsFor(account.id, request.query), groups)
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="delivery_performance.csv"')
        .send(csv)
    },
  )
}
