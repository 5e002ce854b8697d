import { stringify } from 'csv-stringify/sync'
import type { FastifyReply } from 'fastify'
import { delayRulesOf } from '../projectors/accounts/account.ts'
import { DELAY_MODEL_SAMPLE } from '../projectors/deliveries/delay-lessons.ts'
import { parcelStoriesOf } from '../projectors/deliveries/parcel-stories.ts'
import { performanceBetween, promiseGapsBetween } from '../projectors/deliveries/performance.ts'
import { type CalendarDate, isCalendarDate } from '../shared/domain/delivery/calendar.ts'
import { delayBacktest } from '../shared/domain/delivery/delay-backtest.ts'
import type { PerformanceRow } from '../shared/domain/delivery/performance.ts'
import { PROMISE_GAPS } from '../shared/domain/delivery/sums.ts'
import { validationError } from '../shared/domain/errors.ts'
import type { OrderDoc } from '../shared/domain/orders/document.ts'
import { sendPage } from '../shared/infra/http/html-page.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { barChart, lineChart } from './charts.ts'
import type { ConsoleRequest, ConsoleScope, Query } from './frame.ts'
import { renderConsolePage } from './html.ts'
import { kpisOf, LOW_SAMPLE } from './kpis.ts'

/*
 * /console/analytics: how the account's carriers keep their promises, in
 * charts drawn from the same figures as GET /v2/analytics/delivery_performance,
 * each with its table and a CSV of it; and how the delay detection did on
 * the period's delivered parcels.
 */

const PERIODS = [4, 12, 26] as const
/** Carriers on the on-time chart, and lanes on the transit chart: the largest, so the charts stay readable. */
const MAX_SERIES = 5
const MAX_LANES = 10
/** Orders the detection record reads, newest first: a page's worth of streams, not the account's history. */
const MAX_RECORD_ORDERS = 2_000

interface Table {
  columns: string[]
  rows: (string | number | null)[][]
}
interface Chart {
  id: string
  title: string
  takeaway: string
  svgs: { title?: string; svg: string }[]
  table: Table
}

const pct = (rate: number | null) => (rate === null ? null : Math.round(rate * 1000) / 10)
const pctText = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(0)} %`)
const daysAgo = (date: CalendarDate, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)
const bySize = (a: PerformanceRow, b: PerformanceRow) => b.delivered - a.delivered
const nameOf = (r: PerformanceRow) => r.group.carrier ?? 'unknown'

/** The period asked for: the last 4, 12 or 26 weeks to today, or a range of dates (at most two years). */
function periodOf(query: Query, today: CalendarDate) {
  if (query.from || query.to) {
    const { from = '', to = '' } = query
    if (!isCalendarDate(from))
      throw validationError('from: must be a date YYYY-MM-DD', { from: 'must be a date YYYY-MM-DD' })
    if (!isCalendarDate(to)) throw validationError('to: must be a date YYYY-MM-DD', { to: 'must be a date YYYY-MM-DD' })
    if (from > to) throw validationError('from: must not be after to', { from: 'must not be after to' })
    if (Date.parse(to) - Date.parse(from) > 730 * 86_400_000)
      throw validationError('from: must be at most 731 days before to', { from: 'must be at most 731 days before to' })
    return { from, to, weeks: null, query: `from=${from}&to=${to}` }
  }
  const weeks = PERIODS.find((w) => String(w) === query.weeks) ?? 12
  return { from: daysAgo(today, weeks * 7 - 1), to: today, weeks, query: `weeks=${weeks}` }
}

/**
 * Transit by week, every carrier together: the median and the 90th
 * percentile as two lines, a week of under LOW_SAMPLE parcels without its
 * p90 (a gap), a week without deliveries a gap in both.
 */
function transitByWeek(rows: readonly PerformanceRow[]): Chart {
  const sorted = [...rows].sort((a, b) => a.group.week!.localeCompare(b.group.week!))
  const p50 = sorted.map((r) => r.transit_business_days.p50)
  const p90 = sorted.map((r) => (r.delivered < LOW_SAMPLE ? null : r.transit_business_days.p90))
  const last = sorted.findLast((r) => r.transit_business_days.p50 !== null)
  return {
    id: 'transit-weeks',
    title: 'Transit time by week (business days, p50 and p90)',
    takeaway: last
      ? `In the week of ${last.group.week}, half the parcels arrived within ${last.transit_business_days.p50} business days${last.delivered < LOW_SAMPLE ? ` (a low sample: ${last.delivered} parcels)` : ` and 9 in 10 within ${last.transit_business_days.p90}`}.`
      : 'No parcel was delivered in this period.',
    svgs: [
      {
        svg: lineChart({
          label: 'Median and 90th percentile transit in business days, per ISO week, every carrier',
          x: sorted.map((r) => r.group.week!.slice(5)),
          series: [
            { name: 'p50', values: p50 },
            { name: 'p90', values: p90 },
          ],
          max: Math.max(1, ...p90.map((v) => v ?? 0), ...p50.map((v) => v ?? 0)),
          format: (v) => `${v} d`,
        }),
      },
    ],
    table: {
      columns: ['week', 'delivered', 'transit_p50', 'transit_p90'],
      rows: sorted.map((r, i) => [r.group.week!, r.delivered, p50[i]!, p90[i]!]),
    },
  }
}

/** A promise gap in words: "on the day", "2 d late", "3+ d early" at the histogram's ends. */
const gapWords = (gap: number) => {
  const end = gap === PROMISE_GAPS.earliest || gap === PROMISE_GAPS.latest ? '+' : ''
  return gap === 0 ? 'on the day' : `${Math.abs(gap)}${end} d ${gap < 0 ? 'early' : 'late'}`
}

/**
 * How far from their promised day the period's delivered parcels arrived,
 * every carrier together: a bar a day from three early to five late, each
 * a share of the parcels that had a promise.
 */
function estimateAccuracy(gaps: ReadonlyMap<number, number>): Chart {
  const days = Array.from(
    { length: PROMISE_GAPS.latest - PROMISE_GAPS.earliest + 1 },
    (_, i) => PROMISE_GAPS.earliest + i,
  )
  const total = [...gaps.values()].reduce((a, b) => a + b, 0)
  const shareOf = (n: number) => (total === 0 ? null : n / total)
  const sum = (keep: (gap: number) => boolean) => days.filter(keep).reduce((n, d) => n + (gaps.get(d) ?? 0), 0)
  return {
    id: 'accuracy',
    title: 'Estimate accuracy: delivered against the promised day',
    takeaway:
      total === 0
        ? 'No delivered parcel had a promise in this period.'
        : `${pctText(shareOf(gaps.get(0) ?? 0))} arrived on the promised day, ${pctText(shareOf(sum((d) => d < 0)))} before it and ${pctText(shareOf(sum((d) => d > 0)))} after it, of ${total} parcels.`,
    svgs: [
      {
        svg: barChart({
          label: 'Share of the delivered parcels with a promise, by whole days between the promised day and delivery',
          max: Math.max(0.05, ...days.map((d) => shareOf(gaps.get(d) ?? 0) ?? 0)),
          rows: days.map((d) => ({
            label: gapWords(d),
            value: shareOf(gaps.get(d) ?? 0),
            text: `${pctText(shareOf(gaps.get(d) ?? 0))} · n ${gaps.get(d) ?? 0}`,
          })),
        }),
      },
    ],
    table: {
      columns: ['days_after_promise', 'delivered', 'percent'],
      rows: days.map((d) => [d, gaps.get(d) ?? 0, pct(shareOf(gaps.get(d) ?? 0))]),
    },
  }
}

export function analyticsPages(routes: ConsoleScope, rt: Runtime) {
  /** The charts, or the one named (its CSV): the detection record, which reads order streams, only when shown. */
  const chartsOf = async (
    c: ConsoleRequest,
    period: { from: CalendarDate; to: CalendarDate },
    only?: string,
  ): Promise<Chart[]> => {
    const [weekly, lanes, carriers, byWeek, gaps] = await Promise.all([
      performanceBetween(rt, c.account.id, period, ['carrier', 'week']),
      performanceBetween(rt, c.account.id, period, ['carrier', 'destination_country']),
      performanceBetween(rt, c.account.id, period, ['carrier']),
      performanceBetween(rt, c.account.id, period, ['week']),
      promiseGapsBetween(rt, c.account.id, period),
    ])
    const top = [...carriers].sort(bySize).slice(0, MAX_SERIES).map(nameOf)
    const weeks = [...new Set(weekly.map((r) => r.group.week!))].sort()
    const series = top.map((carrier) => ({
      name: carrier,
      values: weeks.map((w) => {
        const row = weekly.find((r) => nameOf(r) === carrier && r.group.week === w)
        return row?.on_time_rate ?? null
      }),
    }))
    const best = [...carriers].filter((r) => r.on_time_rate !== null).sort((a, b) => b.on_time_rate! - a.on_time_rate!)
    const topLanes = [...lanes].sort(bySize).slice(0, MAX_LANES)
    const slowest = [...topLanes].sort(
      (a, b) => (b.transit_business_days.p90 ?? 0) - (a.transit_business_days.p90 ?? 0),
    )[0]
    const worst = [...carriers].sort((a, b) => (b.failed_attempt_rate ?? 0) - (a.failed_attempt_rate ?? 0))[0]
    const record = only === undefined || only === 'detection' ? await detectionRecord(c, period) : undefined
    return [
      {
        id: 'on-time',
        title: 'On time against the promise, by carrier and week',
        takeaway: best[0]
          ? `${nameOf(best[0])} kept ${pctText(best[0].on_time_rate)} of its promises over the period${best.length > 1 ? `; ${nameOf(best.at(-1)!)} ${pctText(best.at(-1)!.on_time_rate)}` : ''}.`
          : 'No delivered parcel had a promise in this period.',
        svgs: [
          {
            svg: lineChart({
              label: 'Share of parcels delivered by their promised date, per ISO week and carrier',
              x: weeks.map((w) => w.slice(5)),
              series,
              max: 1,
              format: (v) => `${Math.round(v * 100)} %`,
            }),
          },
        ],
        table: {
          columns: ['week', 'carrier', 'delivered', 'on_time_percent'],
          rows: weekly
            .filter((r) => top.includes(nameOf(r)))
            .sort((a, b) => a.group.week!.localeCompare(b.group.week!) || nameOf(a).localeCompare(nameOf(b)))
            .map((r) => [r.group.week!, nameOf(r), r.delivered, pct(r.on_time_rate)]),
        },
      },
      transitByWeek(byWeek),
      {
        id: 'transit',
        title: 'Transit time by carrier and lane (business days, p50 to p90)',
        takeaway: slowest
          ? `The slowest large lane is ${nameOf(slowest)} to ${slowest.group.destination_country ?? 'unknown'}: 9 parcels in 10 within ${slowest.transit_business_days.p90 ?? '–'} business days.`
          : 'No parcel was delivered in this period.',
        svgs: [
          {
            svg: barChart({
              label: 'Median and 90th percentile transit in business days, per carrier and destination',
              max: Math.max(1, ...topLanes.map((r) => r.transit_business_days.p90 ?? 0)),
              rows: topLanes.map((r) => ({
                label: `${nameOf(r)} → ${r.group.destination_country ?? '?'}`,
                value: r.transit_business_days.p50,
                upTo: r.delivered < LOW_SAMPLE ? null : r.transit_business_days.p90,
                text:
                  r.delivered < LOW_SAMPLE
                    ? `${r.transit_business_days.p50 ?? '–'} d · n ${r.delivered} (low)`
                    : `${r.transit_business_days.p50 ?? '–'}–${r.transit_business_days.p90 ?? '–'} d · n ${r.delivered}`,
              })),
            }),
          },
        ],
        table: {
          columns: ['carrier', 'destination_country', 'delivered', 'transit_p50', 'transit_p90'],
          rows: topLanes.map((r) => [
            nameOf(r),
            r.group.destination_country ?? '',
            r.delivered,
            r.transit_business_days.p50,
            r.transit_business_days.p90,
          ]),
        },
      },
      {
        id: 'problems',
        title: 'Failed attempts, exceptions and returns by carrier',
        takeaway: worst?.failed_attempt_rate
          ? `${nameOf(worst)} has the most failed delivery attempts: ${pctText(worst.failed_attempt_rate)} of its parcels.`
          : 'No failed attempt in this period.',
        svgs: (['failed_attempt_rate', 'exception_rate', 'returned_rate'] as const).map((field) => {
          const title = {
            failed_attempt_rate: 'Failed attempts',
            exception_rate: 'Exceptions',
            returned_rate: 'Returns',
          }[field]
          const sorted = [...carriers].sort(bySize).slice(0, MAX_LANES)
          return {
            title,
            svg: barChart({
              label: `${title}, share of each carrier's parcels`,
              max: Math.max(0.05, ...sorted.map((r) => r[field] ?? 0)),
              rows: sorted.map((r) => ({ label: nameOf(r), value: r[field], text: pctText(r[field]) })),
            }),
          }
        }),
        table: {
          columns: [
            'carrier',
            'delivered',
            'returned',
            'failed_attempt_percent',
            'exception_percent',
            'returned_percent',
          ],
          rows: [...carriers]
            .sort(bySize)
            .map((r) => [
              nameOf(r),
              r.delivered,
              r.returned,
              pct(r.failed_attempt_rate),
              pct(r.exception_rate),
              pct(r.returned_rate),
            ]),
        },
      },
      estimateAccuracy(gaps),
      ...(record ? [record] : []),
    ].filter((chart) => only === undefined || chart.id === only)
  }

  /** How early the delay detection flagged the period's late parcels, and how often a flag was false. */
  const detectionRecord = async (
    c: ConsoleRequest,
    period: { from: CalendarDate; to: CalendarDate },
  ): Promise<Chart> => {
    // Orders created up to eight weeks before the period may have parcels delivered in it.
    const since = Date.parse(`${daysAgo(period.from, 56)}T00:00:00Z`) / 1000
    const { docs } = await rt.readStore.find<OrderDoc>(collections.orders.name, {
      accountId: c.account.id,
      where: [{ field: 'created_at', op: 'gte', value: since }],
      limit: MAX_RECORD_ORDERS,
    })
    const stories = await parcelStoriesOf(
      rt,
      c.account.id,
      docs.map((d) => d.key),
    )
    const until = Date.parse(`${period.to}T23:59:59Z`) / 1000
    const { rows, total } = delayBacktest(
      stories.filter((s) => s.delivered_at <= until),
      { since: period.from, rules: delayRulesOf(c.account), sample: DELAY_MODEL_SAMPLE },
    )
    const share = (n: number, of: number) => (of ? n / of : null)
    const named = rows.map((r) => ({ ...r, name: `${r.carrier_code} ${r.service_code}`.trim() }))
    return {
      id: 'detection',
      title: 'Delay detection: late parcels flagged a day ahead, and false alarms',
      takeaway: !total.late
        ? 'No delivered parcel with a promise was late in this period.'
        : `${pctText(share(total.flagged_a_day_early, total.late))} of ${total.late} late parcels were flagged at least 24 h before their promise passed; ${
            total.flagged
              ? `${pctText(share(total.false_flags, total.flagged))} of ${total.flagged} flags were false alarms.`
              : 'no parcel was flagged before its promise passed.'
          }`,
      svgs: [
        {
          title: 'Flagged 24 h ahead, of late parcels',
          svg: barChart({
            label: 'Share of late parcels flagged at least 24 hours before the promise passed, per carrier service',
            max: 1,
            rows: named.map((r) => ({
              label: r.name,
              value: share(r.flagged_a_day_early, r.late),
              text: `${pctText(share(r.flagged_a_day_early, r.late))} of ${r.late}`,
            })),
          }),
        },
        {
          title: 'False alarms, of flags',
          svg: barChart({
            label: 'Share of flags on parcels that arrived on time, per carrier service',
            max: 1,
            rows: named.map((r) => ({
              label: r.name,
              value: share(r.false_flags, r.flagged),
              text: `${pctText(share(r.false_flags, r.flagged))} of ${r.flagged}`,
            })),
          }),
        },
      ],
      table: {
        columns: [
          'carrier',
          'service',
          'parcels',
          'late',
          'flagged_24h_early',
          'flagged_before',
          'median_lead_hours',
          'flagged',
          'false_flags',
        ],
        rows: rows.map((r) => [
          r.carrier_code,
          r.service_code,
          r.parcels,
          r.late,
          r.flagged_a_day_early,
          r.flagged_before,
          r.median_lead_hours === null ? null : Math.round(r.median_lead_hours),
          r.flagged,
          r.false_flags,
        ]),
      },
    }
  }

  const analyticsPage = async (c: ConsoleRequest, query: Query, reply: FastifyReply) => {
    const today = rt.clock.now().toISOString().slice(0, 10)
    let period: ReturnType<typeof periodOf>
    try {
      period = periodOf(query, today)
    } catch (error) {
      const fields = (error as { fields?: Record<string, string> }).fields ?? {}
      period = periodOf({}, today)
      return renderAnalytics(c, reply, period, await chartsOf(c, period), { status: 400, query, fields })
    }
    return renderAnalytics(c, reply, period, await chartsOf(c, period))
  }
  /** The period's headline figures beside those of the period as long just before it. */
  const headlineOf = async (c: ConsoleRequest, period: { from: CalendarDate; to: CalendarDate }) => {
    const length = Math.round((Date.parse(period.to) - Date.parse(period.from)) / 86_400_000) + 1
    const before = { from: daysAgo(period.from, length), to: daysAgo(period.from, 1) }
    const [[now], [earlier]] = await Promise.all([
      performanceBetween(rt, c.account.id, period, []),
      performanceBetween(rt, c.account.id, before, []),
    ])
    return { ...kpisOf(now, earlier), before, lowSample: LOW_SAMPLE }
  }
  const renderAnalytics = async (
    c: ConsoleRequest,
    reply: FastifyReply,
    period: ReturnType<typeof periodOf>,
    charts: Chart[],
    refused?: { status: number; query: Query; fields: Record<string, string> },
  ) =>
    sendPage(
      reply,
      refused?.status ?? 200,
      renderConsolePage('analytics', 'Analytics', c.frame, {
        period,
        headline: await headlineOf(c, period),
        periods: PERIODS.map((weeks) => ({ weeks, current: weeks === period.weeks })),
        custom: refused?.query ?? (period.weeks === null ? period : {}),
        errors: refused && { details: 'The period was not changed', fields: refused.fields },
        charts: charts.map((chart) => ({ ...chart, csv: `/console/analytics/${chart.id}.csv?${period.query}` })),
      }),
    )

  routes.get('/console/analytics', 'analytics', (c, request, reply) => analyticsPage(c, request.query as Query, reply))
  routes.get('/console/analytics/:chart', 'analytics', async (c, request, reply) => {
    const name = (request.params as Query).chart ?? ''
    const today = rt.clock.now().toISOString().slice(0, 10)
    const period = periodOf(request.query as Query, today)
    if (!name.endsWith('.csv')) return reply.callNotFound()
    const [chart] = await chartsOf(c, period, name.slice(0, -'.csv'.length))
    if (!chart) return reply.callNotFound()
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${chart.id}-${period.from}-${period.to}.csv"`)
      .send(stringify(chart.table.rows, { header: true, columns: chart.table.columns }))
  })
}
