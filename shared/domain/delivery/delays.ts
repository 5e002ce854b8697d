import type { Delay, DelayStatus } from '../events/order-events.ts'
import type { OrderEvent } from '../events/index.ts'
import type { DelayRules } from '../events/account-events.ts'
import type { DeliveryCalendar } from './business-days.ts'
import { timeZoneAt } from '../contacts/time-zones.ts'
import { addDays, type CalendarDate, instantOf, isPublicHoliday, localDateTime, weekdayOf } from './calendar.ts'

/*
 * When an open parcel is late, stalled or at risk, and when that can next
 * change without a scan: the rules of docs/estimation.md, on the parcel's own
 * days (its destination's time zone, its carrier service's delivery days and
 * the lane's public holidays).
 */

export const DEFAULT_DELAY_RULES: DelayRules = { stalled_after_business_days: 3, notify_at_risk: false }

/** The days a parcel lives by: its destination's time zone, and its service's calendar on its lane. */
export interface ParcelDays {
  zone: string
  calendar: DeliveryCalendar
  countries: readonly (string | null)[]
}

/** What one open parcel's delay is decided on. */
export interface ParcelProgress {
  created_at: number
  /** Unix seconds of its first movement; null before it shipped. */
  shipped_at: number | null
  /** The latest `happened_at` of its carrier events; null before its first. */
  last_scan_at: number | null
  /** The end of this day, in its destination's time zone, is when it turns late. */
  promise: CalendarDate | null
}

/** Where an open parcel stands on a day: business days left to its promise (-1: past it), and full business days without a scan. */
export interface Situation {
  days_to_promise: number
  quiet_days: number
}

/** What a lane's delivered parcels teach of one parcel's (delay-model.ts). */
export interface LaneLessons {
  /** Full business days without a scan that the lane's parcels exceed once in twenty at most; null without enough gaps. */
  quiet_days: number | null
  /** Of the lane's parcels that stood where this one stands, the share delivered late, and the business days they still took; undefined with too few. */
  outlook(situation: Situation): { late_share: number; remaining_days: number } | undefined
}

/** A parcel is at risk when most of its lane's parcels that stood where it stands arrived late. */
export const AT_RISK_SHARE = 0.6

export const DAY_SECONDS = 86_400

/** The days of a parcel going to this place (UTC where its zone is unknown), on its service's calendar. */
export const parcelDaysTo = (
  destination: { country: string | null; state: string | null },
  calendar: DeliveryCalendar,
): ParcelDays => ({
  zone: timeZoneAt(destination.country, destination.state) ?? 'UTC',
  calendar,
  countries: [destination.country],
})

export const dayOf = (days: ParcelDays, seconds: number): CalendarDate =>
  localDateTime(days.zone, new Date(seconds * 1000)).date
/** The instant a parcel's day begins, in Unix seconds. */
export const startOfDay = (days: ParcelDays, date: CalendarDate) =>
  Math.floor(instantOf(days.zone, date, '00:00').getTime() / 1000)

export const isBusinessDay = (days: ParcelDays, d: CalendarDate) =>
  days.calendar.delivery_days.includes(weekdayOf(d)) && !days.countries.some((c) => c !== null && isPublicHoliday(c, d))

/** A year of days: no rule looks further, and no loop over days runs away. */
const MAX_DAYS = 400

/** Business days strictly between two days. */
export function businessDaysWithin(days: ParcelDays, after: CalendarDate, before: CalendarDate): number {
  let n = 0
  for (let d = addDays(after, 1), i = 0; d < before && i < MAX_DAYS; d = addDays(d, 1), i++)
    if (isBusinessDay(days, d)) n++
  return n
}

/** Where a parcel stands at the start of `day`, its last scan (or creation) on `quietFrom`. */
export function situationOn(days: ParcelDays, day: CalendarDate, promise: CalendarDate, quietFrom: CalendarDate) {
  return {
    days_to_promise: day > promise ? -1 : businessDaysWithin(days, day, addDays(promise, 1)),
    quiet_days: businessDaysWithin(days, quietFrom, day),
  }
}

/** The day `n` business days after `from` (`from` itself for 0). */
export function afterBusinessDays(days: ParcelDays, from: CalendarDate, n: number): CalendarDate {
  let d = from
  for (let counted = 0, i = 0; counted < n && i < MAX_DAYS; i++) {
    d = addDays(d, 1)
    if (isBusinessDay(days, d)) counted++
  }
  return d
}

/** The first day that begins with `threshold` full business days without a scan since `from`. */
function stallDay(days: ParcelDays, from: CalendarDate, threshold: number): CalendarDate {
  let d = from
  for (let quiet = 0, i = 0; i < MAX_DAYS; i++) {
    d = addDays(d, 1)
    if (quiet >= threshold) return d
    if (isBusinessDay(days, d)) quiet++
  }
  return d
}

/** The delay a parcel has at `now`, and when it can next change without a scan (null: not before a new event). */
export interface DelayVerdict {
  delay: { status: DelayStatus; since: number; reason: Delay['reason']; revised: CalendarDate | null } | null
  next_check_at: number | null
}

/**
 * The delay of an open parcel at `now`: `late` once its promise's day has
 * ended; else `stalled` once it has gone without a scan for the lane's
 * learned quiet days (past them, at least one) or, without them, the rules'
 * business days, counted from its creation before a first scan; else
 * `at_risk` when it has shipped and most of its lane's parcels that stood
 * where it stands today arrived late. The next check is the first of the
 * moments that would change it if no scan came.
 */
export function delayVerdict(
  p: ParcelProgress,
  days: ParcelDays,
  rules: DelayRules,
  lessons: LaneLessons | undefined,
  now: number,
): DelayVerdict {
  const today = dayOf(days, now)
  const lateAt = p.promise === null ? null : startOfDay(days, addDays(p.promise, 1))
  const quietFrom = dayOf(days, p.last_scan_at ?? p.created_at)
  const threshold = lessons?.quiet_days != null ? lessons.quiet_days + 1 : rules.stalled_after_business_days
  const stalledOn = stallDay(days, quietFrom, threshold)
  const stalledAt = startOfDay(days, stalledOn)
  const promise = p.promise
  const revisedOn = (day: CalendarDate) => {
    const outlook = promise && lessons?.outlook(situationOn(days, day, promise, quietFrom))
    return outlook ? afterBusinessDays(days, day, outlook.remaining_days) : null
  }
  const atRiskOn = (day: CalendarDate) => {
    if (p.shipped_at === null || promise === null || !lessons || day > promise) return false
    const outlook = lessons.outlook(situationOn(days, day, promise, quietFrom))
    return outlook !== undefined && outlook.late_share >= AT_RISK_SHARE
  }
  const earliest = (...at: (number | null)[]) => {
    const future = at.filter((t): t is number => t !== null && t > now)
    return future.length > 0 ? Math.min(...future) : null
  }

  if (lateAt !== null && now >= lateAt)
    return {
      delay: { status: 'late', since: lateAt, reason: 'promise_passed', revised: revisedOn(today) },
      next_check_at: null,
    }
  if (now >= stalledAt) {
    const reason = p.last_scan_at === null ? 'no_first_scan' : 'no_scan'
    return { delay: { status: 'stalled', since: stalledAt, reason, revised: revisedOn(today) }, next_check_at: lateAt }
  }
  if (atRiskOn(today))
    return {
      delay: { status: 'at_risk', since: startOfDay(days, today), reason: 'behind_lane', revised: revisedOn(today) },
      next_check_at: earliest(lateAt, stalledAt),
    }
  // The first day ahead, before the promise and the stall, on which the parcel would fall behind without a scan.
  let riskAt: number | null = null
  if (promise !== null && p.shipped_at !== null && lessons)
    for (let d = addDays(today, 1); d <= promise && d < stalledOn; d = addDays(d, 1))
      if (atRiskOn(d)) {
        riskAt = startOfDay(days, d)
        break
      }
  return { delay: null, next_check_at: earliest(lateAt, stalledAt, riskAt) }
}

/**
 * The earliest a tracker's delay can change, as its events alone tell it,
 * before shiplog has looked with its lane's lessons: the end of its promised
 * day in the earliest time zone there is (UTC+14), and a day after its
 * creation or its shipping (a scan dated days back that ships it is then due
 * at once). A later scan only moves a stall later. A check that comes early
 * finds nothing and says when to look again.
 */
export const promiseBound = (promise: CalendarDate | null): number | null =>
  promise === null ? null : Date.parse(`${promise}T00:00:00Z`) / 1000 + DAY_SECONDS - 14 * 3600

export const earlierOf = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b))

/**
 * When a tracker's delay is next looked at, after one of its events, with
 * `delayed` whether it has a delay and `ended` whether its status is final
 * after the event: never once it has ended (at once if a delay is left to
 * clear); what the last look said; else
 * earlier when an event moves one of the bounds above (a promise changed on a
 * delayed parcel is looked at at once). The write side and the trackers index
 * fold it alike, so the sweep and the decider agree on what is due.
 */
export function delayCheckAfter(
  check: number | null,
  event: OrderEvent,
  delayed: boolean,
  ended: boolean,
): number | null {
  // An ended parcel keeps no delay: one still set (its status moved by the merchant, not a scan) is cleared at once.
  if (ended) return delayed ? event.data.at : null
  switch (event.type) {
    case 'TrackerCreated':
      return earlierOf(
        event.data.at + DAY_SECONDS,
        promiseBound(event.data.changes.displayable_expected_delivery_date ?? null),
      )
    case 'TrackerUpdated': {
      const { changes, at } = event.data
      let next = check
      if (changes.displayable_expected_delivery_date !== undefined)
        next = earlierOf(next, delayed ? at : promiseBound(changes.displayable_expected_delivery_date))
      if (changes.shipped_at != null) next = earlierOf(next, changes.shipped_at + DAY_SECONDS)
      return next
    }
    case 'TrackerDelayChanged':
    case 'TrackerDelayChecked':
      return event.data.next_check_at
    default:
      return check
  }
}

/** Whether a tracker event can move when its delay is looked at (what the trackers index follows). */
export function movesDelayCheck(event: OrderEvent): boolean {
  switch (event.type) {
    case 'TrackerUpdated':
      return (
        event.data.changes.displayable_expected_delivery_date !== undefined || event.data.changes.shipped_at != null
      )
    case 'TrackerDelayChanged':
    case 'TrackerDelayChecked':
      return true
    default:
      return false
  }
}
