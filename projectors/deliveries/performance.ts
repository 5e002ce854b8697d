import { stringify } from 'csv-stringify/sync'
import type { CalendarDate } from '../../shared/domain/delivery/calendar.ts'
import { WORKING_WEEK } from '../../shared/domain/delivery/business-days.ts'
import {
  type PerformanceGroup,
  type PerformanceRow,
  performanceRows,
  promiseGapsOf,
} from '../../shared/domain/delivery/performance.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { configuredServices } from '../carrier-services/configured.ts'
import { bucketsBetween } from './learned.ts'

/*
 * How an account's carriers perform between two dates, from the delivery
 * history's daily sums: what the analytics API and the console's charts
 * both show, in rows and as CSV.
 */

export async function performanceBetween(
  rt: Pick<Runtime, 'readStore' | 'clock'>,
  accountId: number,
  range: { from: CalendarDate; to: CalendarDate },
  groups: readonly PerformanceGroup[],
): Promise<PerformanceRow[]> {
  const [buckets, services] = await Promise.all([
    bucketsBetween(rt, accountId, range.from, range.to),
    configuredServices(rt, accountId),
  ])
  return performanceRows(
    buckets,
    groups,
    (carrier, service) =>
      services.find((s) => s.carrier_code === carrier && s.service_code === service) ?? WORKING_WEEK,
    range,
  )
}

/** The delivered parcels with a promise between two dates, by whole days from it (the estimate-accuracy histogram's). */
export async function promiseGapsBetween(
  rt: Pick<Runtime, 'readStore' | 'clock'>,
  accountId: number,
  range: { from: CalendarDate; to: CalendarDate },
) {
  return promiseGapsOf(await bucketsBetween(rt, accountId, range.from, range.to), range)
}

const CSV_COLUMNS = [
  'delivered',
  'returned',
  'transit_p50',
  'transit_p90',
  'on_time_rate',
  'failed_attempt_rate',
  'exception_rate',
  'returned_rate',
] as const

/** The rows as CSV, a header line first: a column per group, then the figures (an unknown figure empty). */
export const performanceCsv = (rows: readonly PerformanceRow[], groups: readonly PerformanceGroup[]) =>
  stringify(
    rows.map((r) => [
      ...groups.map((g) => r.group[g] ?? ''),
      r.delivered,
      r.returned,
      r.transit_business_days.p50 ?? '',
      r.transit_business_days.p90 ?? '',
      r.on_time_rate ?? '',
      r.failed_attempt_rate ?? '',
      r.exception_rate ?? '',
      r.returned_rate ?? '',
    ]),
    { header: true, columns: [...groups, ...CSV_COLUMNS] },
  )
