import type { CalendarDate } from './calendar.ts'
import { type DeliveryBucket, type LaneOf, type PrefixBucket, postcodePrefix, transitOf } from './sums.ts'
import { type DeliveryCalendar, businessDaysOf } from './business-days.ts'

/*
 * What shiplog learns from the parcels it has seen delivered: per order, the
 * facts of each parcel (its carrier service, lane, when it shipped and when it
 * was delivered or returned, what was promised, what went wrong); per day a
 * parcel ended, the sum of those facts by carrier service and lane. Transit
 * times are kept as ship dates and counted in business days when read, with
 * the carrier service's calendar as it is configured then.
 */

/** A distribution of transit times in business days: how many parcels took each. */
export type Distribution = Map<number, number>

export const sizeOf = (d: Distribution) => [...d.values()].reduce((a, b) => a + b, 0)

/** The smallest number of days that at least `p` of the parcels took no more than. */
export function quantile(d: Distribution, p: number): number | undefined {
  const total = sizeOf(d)
  if (total === 0) return undefined
  let seen = 0
  for (const days of [...d.keys()].sort((a, b) => a - b)) {
    seen += d.get(days)!
    if (seen >= p * total) return days
  }
  return undefined
}

/** The most likely number of days: the one most parcels took (the fewer days on a tie). */
export function mode(d: Distribution): number | undefined {
  let best: [number, number] | undefined
  for (const [days, count] of d)
    if (!best || count > best[1] || (count === best[1] && days < best[0])) best = [days, count]
  return best?.[0]
}

/** Where a learned estimate came from: its lane's history, or only coarser ones. */
export type LearnedLevel = 'postcode' | 'lane' | 'destination' | 'service'

export interface LearnedTransit {
  /** The most likely transit, in business days: the delivery date. */
  days: number
  /** The 95th percentile: the day all but one parcel in twenty are delivered by. */
  safe_days: number
  sample_size: number
  level: LearnedLevel
}

/** Fewest parcels a level needs before its history speaks for it: a postcode prefix needs more, its estimate is finer. */
export const MIN_SAMPLE: Record<LearnedLevel, number> = { postcode: 100, lane: 20, destination: 20, service: 20 }

/** The recent part of the window: a carrier that slows down is followed by what it did these last weeks. */
export const RECENT_DAYS = 28

/**
 * The learned transit of a lane: its postcode prefix's history when it has
 * enough parcels, else the lane's, else the destination country's from any
 * origin, else the whole carrier service's; undefined when even that has too
 * few. Within a level, the last RECENT_DAYS speak when they hold enough
 * parcels, else the whole window does.
 */
export function learnedTransit(
  levels: readonly [LearnedLevel, Distribution | undefined, Distribution | undefined][],
): LearnedTransit | undefined {
  for (const [level, window, recent] of levels) {
    if (!window || sizeOf(window) < MIN_SAMPLE[level]) continue
    const used = recent && sizeOf(recent) >= MIN_SAMPLE[level] ? recent : window
    return { days: mode(used)!, safe_days: quantile(used, 0.95)!, sample_size: sizeOf(used), level }
  }
  return undefined
}

/** The transit distributions learned, at each level of each carrier service's lanes. */
export type TransitHistory = Map<string, Distribution>

/** The window's history, and the part of it of the last RECENT_DAYS. */
export interface Histories {
  window: TransitHistory
  recent: TransitHistory
}

export interface LaneQuery {
  carrier_code: string
  service_code: string
  origin?: string | null
  destination?: string | null
  postcode?: string | null
}

const levelKeys = (q: LaneQuery): [LearnedLevel, string][] => {
  const service = `${q.carrier_code}|${q.service_code}`
  return [
    ['postcode', `${service}|${q.origin ?? ''}|${q.destination ?? ''}|${q.postcode ? postcodePrefix(q.postcode) : ''}`],
    ['lane', `${service}|${q.origin ?? ''}|${q.destination ?? ''}`],
    ['destination', `${service}|*|${q.destination ?? ''}`],
    ['service', service],
  ]
}

/** Adds `count` parcels of `days` business days (or takes them back, negative) to every level of their lane. */
export function addToHistory(
  history: TransitHistory,
  lane: LaneQuery & { prefix?: string | null },
  days: number,
  count: number,
) {
  addToLevels(history, lane, days, count, 'lanes')
  if (lane.prefix) addToLevels(history, lane, days, count, 'postcode')
}

/** The postcode level alone, or the three others. */
function addToLevels(
  history: TransitHistory,
  lane: LaneQuery & { prefix?: string | null },
  days: number,
  count: number,
  levels: 'postcode' | 'lanes',
) {
  for (const [level, key] of levelKeys(Object.assign({}, lane, { postcode: lane.prefix ?? null }))) {
    if ((level === 'postcode') !== (levels === 'postcode')) continue
    const distribution = history.get(key) ?? new Map<number, number>()
    const n = (distribution.get(days) ?? 0) + count
    if (n === 0) distribution.delete(days)
    else distribution.set(days, n)
    history.set(key, distribution)
  }
}

/**
 * The history of the weeks given: the parcels delivered from `from` on (the
 * window; its first week may hold older days), and those from `recentFrom`
 * on as the recent history too; transit counted with each service's calendar.
 */
export function transitHistoryOf(
  buckets: Iterable<DeliveryBucket>,
  prefixes: Iterable<PrefixBucket>,
  calendarOf: (carrier: string, service: string) => DeliveryCalendar,
  range: { from: CalendarDate; recentFrom: CalendarDate },
): Histories {
  const histories: Histories = { window: new Map(), recent: new Map() }
  const add = (lane: LaneOf, transits: Record<string, number>, prefix: string | null) => {
    const spans = businessDaysOf(calendarOf(lane.carrier_code, lane.service_code), [lane.origin, lane.destination])
    for (const [key, count] of Object.entries(transits)) {
      const [delivered] = transitOf(key)
      if (delivered < range.from) continue
      const days = spans(key)
      for (const history of delivered >= range.recentFrom ? [histories.window, histories.recent] : [histories.window])
        addToLevels(history, Object.assign({}, lane, { prefix }), days, count, prefix === null ? 'lanes' : 'postcode')
    }
  }
  for (const b of buckets) add(b, b.transits, null)
  for (const p of prefixes) for (const [prefix, transits] of Object.entries(p.by_prefix)) add(p, transits, prefix)
  return histories
}

/** What the history says of a lane, from its finest level with enough parcels. */
export const learnedFor = (histories: Histories, q: LaneQuery): LearnedTransit | undefined =>
  learnedTransit(levelKeys(q).map(([level, key]) => [level, histories.window.get(key), histories.recent.get(key)]))
