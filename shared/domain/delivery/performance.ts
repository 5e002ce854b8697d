import { addDays, type CalendarDate, weekdayOf } from './calendar.ts'
import { type Distribution, quantile } from './history.ts'
import { businessDaysOf, type DeliveryCalendar } from './business-days.ts'
import { type Counters, type DeliveryBucket, deliveredOn } from './sums.ts'

/*
 * How a merchant's carriers perform: the parcels that ended in a period,
 * grouped by any of carrier, service, destination country and ISO week, with
 * their transit in business days and the shares on time, with a failed
 * attempt, with an exception, returned.
 */

export const performanceGroups = ['carrier', 'service', 'destination_country', 'week'] as const
export type PerformanceGroup = (typeof performanceGroups)[number]

export interface PerformanceRow {
  /** The group's values, in `group_by` order: the row's cursor. */
  key: string
  group: Partial<Record<PerformanceGroup, string | null>>
  delivered: number
  returned: number
  transit_business_days: { p50: number | null; p90: number | null }
  /** Of the delivered parcels that had a promise when they shipped, the share delivered by its date. */
  on_time_rate: number | null
  failed_attempt_rate: number | null
  exception_rate: number | null
  returned_rate: number | null
}

const weeks = new Map<CalendarDate, string>()

/** The ISO 8601 week of a date, `2026-W48`. */
export function isoWeek(date: CalendarDate): string {
  let week = weeks.get(date)
  if (week === undefined) {
    week = isoWeekOf(date)
    if (weeks.size > 10_000) weeks.clear()
    weeks.set(date, week)
  }
  return week
}

function isoWeekOf(date: CalendarDate): string {
  const thursday = addDays(
    date,
    3 -
      (['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const).indexOf(
        weekdayOf(date),
      ),
  )
  const year = thursday.slice(0, 4)
  const first = new Date(`${year}-01-01T00:00:00Z`).getTime()
  const week = Math.floor((new Date(`${thursday}T00:00:00Z`).getTime() - first) / 86_400_000 / 7) + 1
  return `${year}-W${String(week).padStart(2, '0')}`
}

const groupValue = (b: DeliveryBucket, day: CalendarDate, g: PerformanceGroup) =>
  g === 'carrier'
    ? b.carrier_code
    : g === 'service'
      ? `${b.carrier_code}/${b.service_code}`
      : g === 'destination_country'
        ? b.destination
        : isoWeek(day)

const share = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 10_000) / 10_000)

/**
 * Rows of the parcels that ended between `from` and `to` (both included),
 * from the weeks' sums, by the groups asked, in the order of their key.
 */
export function performanceRows(
  buckets: readonly DeliveryBucket[],
  groupBy: readonly PerformanceGroup[],
  calendarOf: (carrier: string, service: string) => DeliveryCalendar,
  range: { from: CalendarDate; to: CalendarDate },
): PerformanceRow[] {
  const groups = new Map<string, { group: PerformanceRow['group']; totals: Counters; transit: Distribution }>()
  // A week's days all fall in one group (an ISO week starts on the Monday its sums start on).
  const entryOf = (b: DeliveryBucket) => {
    const group = Object.fromEntries(groupBy.map((g) => [g, groupValue(b, b.week, g)]))
    const key = groupBy.map((g) => group[g] ?? '').join('|')
    const entry = groups.get(key) ?? {
      group,
      totals: { delivered: 0, returned: 0, promised: 0, on_time: 0, failed_attempt: 0, exception: 0 },
      transit: new Map<number, number>(),
    }
    groups.set(key, entry)
    return entry
  }
  const inRange = (day: CalendarDate) => day >= range.from && day <= range.to
  for (const b of buckets) {
    const whole = b.week >= range.from && addDays(b.week, 6) <= range.to
    let entry: ReturnType<typeof entryOf> | undefined
    for (const day in b.days) {
      if (!whole && !inRange(day)) continue
      entry ??= entryOf(b)
      const counters = b.days[day]!
      const totals = entry.totals
      totals.delivered += counters.delivered
      totals.returned += counters.returned
      totals.promised += counters.promised
      totals.on_time += counters.on_time
      totals.failed_attempt += counters.failed_attempt
      totals.exception += counters.exception
    }
    const spans = businessDaysOf(calendarOf(b.carrier_code, b.service_code), [b.origin, b.destination])
    // Plain loops over the keys: a year's analytics visit every transit of every week, half a million of them.
    for (const key in b.transits) {
      if (!whole && !inRange(deliveredOn(key))) continue
      entry ??= entryOf(b)
      const days = spans(key)
      entry.transit.set(days, (entry.transit.get(days) ?? 0) + b.transits[key]!)
    }
  }
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, { group, totals: t, transit }]) => {
      const ended = t.delivered + t.returned
      return {
        key,
        group,
        delivered: t.delivered,
        returned: t.returned,
        transit_business_days: { p50: quantile(transit, 0.5) ?? null, p90: quantile(transit, 0.9) ?? null },
        on_time_rate: share(t.on_time, t.promised),
        failed_attempt_rate: share(t.failed_attempt, ended),
        exception_rate: share(t.exception, ended),
        returned_rate: share(t.returned, ended),
      }
    })
}

/**
 * The delivered parcels that had a promise and ended between `from` and `to`
 * (both included), by their promise gap (whole days late; negative: early):
 * what the estimate-accuracy histogram counts.
 */
export function promiseGapsOf(buckets: readonly DeliveryBucket[], range: { from: CalendarDate; to: CalendarDate }) {
  const gaps = new Map<number, number>()
  for (const b of buckets)
    for (const key in b.promise_gaps) {
      const day = deliveredOn(key)
      if (day < range.from || day > range.to) continue
      const gap = Number(key.slice(11))
      gaps.set(gap, (gaps.get(gap) ?? 0) + b.promise_gaps[key]!)
    }
  return gaps
}
