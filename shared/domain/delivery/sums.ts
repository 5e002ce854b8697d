import { timeZoneAt } from '../contacts/time-zones.ts'
import { addDays, type CalendarDate, localDateTime, weekdayOf } from './calendar.ts'
import { type OrderDeliveryFacts, type ParcelFacts, destinationOf } from './facts.ts'

/*
 * What the parcels that ended add to their week's sums, per carrier service
 * and lane, and what a parcel contributes once it has ended.
 */

/** What one parcel that ended (delivered, or returned) adds to its day's sums. */
export interface Contribution {
  /** The bucket: carrier service, lane and the day it ended, in the destination's time zone. */
  carrier_code: string
  service_code: string
  origin: string | null
  destination: string | null
  ended_on: CalendarDate
  /** Null for a returned parcel: it has no transit time. */
  shipped_on: CalendarDate | null
  /** The first two characters of the destination postcode. */
  prefix: string | null
  delivered: boolean
  /** null: nothing was promised. */
  on_time: boolean | null
  /** Whole days from the promised day to the day it was delivered (negative: early), within PROMISE_GAPS; null: no promise. */
  promise_gap: number | null
  failed_attempt: boolean
  exception: boolean
  returned: boolean
}

const dayIn = (zone: string, seconds: number) => localDateTime(zone, new Date(seconds * 1000)).date

/** A parcel's contribution, once it has ended with a known carrier service; undefined before. */
export function contributionOf(order: OrderDeliveryFacts, p: ParcelFacts): Contribution | undefined {
  const { delivered_at, shipped_at } = p
  const delivered = delivered_at !== null && shipped_at !== null
  const ended_at = delivered ? delivered_at : p.returned_at
  // Most parcels a fold meets have not ended: they add nothing, and need no time zone.
  if (!p.carrier_code || ended_at === null) return undefined
  const place = destinationOf(order, p.fulfillment_id)
  const zone = timeZoneAt(place?.country ?? null, place?.state ?? null) ?? 'UTC'
  const ended_on = dayIn(zone, ended_at)
  const common = {
    carrier_code: p.carrier_code,
    service_code: p.service_code ?? '',
    origin: p.origin,
    destination: place?.country ?? null,
    prefix: place?.postcode ? postcodePrefix(place.postcode) : null,
    failed_attempt: p.failed_attempt,
    exception: p.exception,
    ended_on,
  }
  if (delivered)
    return Object.assign(common, {
      shipped_on: dayIn(zone, shipped_at),
      delivered: true,
      on_time: p.promised_date === null ? null : ended_on <= p.promised_date,
      promise_gap: p.promised_date === null ? null : promiseGap(p.promised_date, ended_on),
      returned: false,
    })
  return Object.assign(common, {
    shipped_on: null,
    delivered: false,
    on_time: null,
    promise_gap: null,
    returned: true,
  })
}

/** The days the estimate-accuracy histogram runs over: three or more early are -3, five or more late are 5. */
export const PROMISE_GAPS = { earliest: -3, latest: 5 } as const

/** Whole days from a promised day to the day delivered, clamped to PROMISE_GAPS. */
const promiseGap = (promised: CalendarDate, delivered: CalendarDate) =>
  Math.min(
    PROMISE_GAPS.latest,
    Math.max(PROMISE_GAPS.earliest, Math.round((Date.parse(delivered) - Date.parse(promised)) / 86_400_000)),
  )

export const postcodePrefix = (postcode: string) => postcode.replace(/[\s-]/g, '').slice(0, 2).toUpperCase()

/** What the parcels that ended on one day count. */
export interface Counters {
  delivered: number
  returned: number
  /** Delivered parcels that had a promise, and those of them on time. */
  promised: number
  on_time: number
  failed_attempt: number
  exception: number
}

const noCounters = (): Counters => ({
  delivered: 0,
  returned: 0,
  promised: 0,
  on_time: 0,
  failed_attempt: 0,
  exception: 0,
})

/** A lane of a carrier service: what a week's sums are kept per. */
export interface LaneOf {
  carrier_code: string
  service_code: string
  origin: string | null
  destination: string | null
}

/**
 * The sums of the parcels that ended in one week (Monday to Sunday) on one
 * carrier service's lane: per day, and the delivered ones by the day they
 * were delivered and the day they shipped (`<delivered>|<shipped>`), from
 * which transit is counted in business days when read. A week rather than a
 * day: a year of a busy account's analytics reads a seventh of the documents.
 */
export interface DeliveryBucket extends LaneOf {
  /** Its Monday. */
  week: CalendarDate
  days: Record<CalendarDate, Counters>
  transits: Record<string, number>
  /**
   * The delivered parcels that had a promise, by the day delivered and their
   * promise gap (`<delivered>|<gap>`); absent from the weeks summed before it
   * was kept (`shiplog projections rebuild delivery_stats` counts them).
   */
  promise_gaps?: Record<string, number>
}

/** The same week's delivered parcels per destination postcode prefix: what the finest estimates learn from. */
export interface PrefixBucket extends LaneOf {
  week: CalendarDate
  by_prefix: Record<string, Record<string, number>>
}

/** The Monday of a date's week. */
export const weekOf = (date: CalendarDate) =>
  addDays(
    date,
    -['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].indexOf(weekdayOf(date)),
  )

/** A transit's key: the day delivered, then the day shipped. */
export const transitKey = (delivered: CalendarDate, shipped: CalendarDate) => `${delivered}|${shipped}`
export const transitOf = (key: string) => key.split('|') as [delivered: CalendarDate, shipped: CalendarDate]
/** The day a transit ended: its key's first date. */
export const deliveredOn = (key: string): CalendarDate => key.slice(0, 10)

export const bucketKeyOf = (c: LaneOf & { ended_on: CalendarDate }) =>
  [c.carrier_code, c.service_code, c.origin ?? '', c.destination ?? '', weekOf(c.ended_on)]
    .map(encodeURIComponent)
    .join('|')

const laneOf = (c: LaneOf): LaneOf => ({
  carrier_code: c.carrier_code,
  service_code: c.service_code,
  origin: c.origin,
  destination: c.destination,
})

export const emptyBucket = (c: Contribution): DeliveryBucket =>
  Object.assign(laneOf(c), { week: weekOf(c.ended_on), days: {}, transits: {} })
export const emptyPrefixBucket = (c: Contribution): PrefixBucket =>
  Object.assign(laneOf(c), { week: weekOf(c.ended_on), by_prefix: {} })

const bump = (counts: Record<string, number>, key: string, by: number) => {
  const n = (counts[key] ?? 0) + by
  if (n === 0) delete counts[key]
  else counts[key] = n
}

/** Adds (`sign` 1) or takes back (-1) a parcel's contribution to its week, in place. */
export function applyContribution(bucket: DeliveryBucket, c: Contribution, sign: 1 | -1) {
  const day = bucket.days[c.ended_on] ?? noCounters()
  day.delivered += c.delivered ? sign : 0
  day.returned += c.returned ? sign : 0
  if (c.on_time !== null) {
    day.promised += sign
    day.on_time += c.on_time ? sign : 0
  }
  day.failed_attempt += c.failed_attempt ? sign : 0
  day.exception += c.exception ? sign : 0
  if (Object.values(day).every((n) => n === 0)) delete bucket.days[c.ended_on]
  else bucket.days[c.ended_on] = day
  if (c.shipped_on !== null) bump(bucket.transits, transitKey(c.ended_on, c.shipped_on), sign)
  if (c.promise_gap !== null) {
    bucket.promise_gaps ??= {}
    const key = `${c.ended_on}|${c.promise_gap}`
    // A parcel summed before gaps were kept has none to take back: its gap never goes below nothing.
    if (sign > 0 || key in bucket.promise_gaps) bump(bucket.promise_gaps, key, sign)
  }
}

/** The same for the week's postcode prefixes: a delivered parcel to a known postcode only. */
export function applyPrefixContribution(bucket: PrefixBucket, c: Contribution, sign: 1 | -1) {
  if (c.shipped_on === null || c.prefix === null) return
  const byPrefix = bucket.by_prefix[c.prefix] ?? {}
  bump(byPrefix, transitKey(c.ended_on, c.shipped_on), sign)
  if (Object.keys(byPrefix).length === 0) delete bucket.by_prefix[c.prefix]
  else bucket.by_prefix[c.prefix] = byPrefix
}
