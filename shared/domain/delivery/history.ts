import type { OrderEvent } from '../events/index.ts'
import { firstsOf, scansSeenAfter } from './firsts.ts'
import type { StoredAddress } from '../events/resources.ts'
import { timeZoneAt } from '../contacts/time-zones.ts'
import { addDays, type CalendarDate, isPublicHoliday, localDateTime, weekdayOf } from './calendar.ts'
import type { Weekday } from '../events/pickup-point-events.ts'

/*
 * What shiplog learns from the parcels it has seen delivered: per order, the
 * facts of each parcel (its carrier service, lane, when it shipped and when it
 * was delivered or returned, what was promised, what went wrong); per day a
 * parcel ended, the sum of those facts by carrier service and lane. Transit
 * times are kept as ship dates and counted in business days when read, with
 * the carrier service's calendar as it is configured then.
 */

/** One parcel's facts, as its order's events tell them. */
export interface ParcelFacts {
  tracker_id: number
  fulfillment_id: number
  carrier_code: string | null
  service_code: string | null
  /** The country of the carrier's earliest event that names one: where it left from. */
  origin: string | null
  origin_at: number | null
  shipped_at: number | null
  delivered_at: number | null
  returned_at: number | null
  expected_date: CalendarDate | null
  /** The expected delivery date it had when it shipped. */
  promised_date: CalendarDate | null
  failed_attempt: boolean
  exception: boolean
}

export interface OrderDeliveryFacts {
  order_id: number
  destination: Place | null
  /**
   * Each fulfillment's own address, where it has one, as (fulfillment id,
   * place) pairs, not an object keyed by the ids (docs/contributing.md,
   * objects on hot paths).
   */
  fulfillment_destinations: readonly FulfillmentDestination[]
  parcels: ParcelFacts[]
}

export type FulfillmentDestination = readonly [fulfillment_id: number, place: Place]

export interface Place {
  country: string | null
  postcode: string | null
  state: string | null
}

/** Where an address is, as recorded (its fields that are null may be left out). */
const placeOf = (a: StoredAddress | null | undefined): Place | null | undefined =>
  a === undefined
    ? undefined
    : a === null
      ? null
      : { country: a.country_code ?? null, postcode: a.zip ?? null, state: a.state ?? null }

const newParcel = (tracker_id: number, fulfillment_id: number): ParcelFacts => ({
  tracker_id,
  fulfillment_id,
  carrier_code: null,
  service_code: null,
  origin: null,
  origin_at: null,
  shipped_at: null,
  delivered_at: null,
  returned_at: null,
  expected_date: null,
  promised_date: null,
  failed_attempt: false,
  exception: false,
})

/** Whether an event of this type can change an order's delivery facts. */
export const changesDeliveryFacts = (type: string) => FOLDED.has(type)

/** The tracker changes the facts keep (those withChanges reads): any other leaves a parcel's facts as they were. */
const PARCEL_CHANGES = [
  'carrier',
  'carrier_service',
  'displayable_expected_delivery_date',
  'delivered_at',
  'shipped_at',
]

/**
 * Whether this event can change an order's delivery facts, by what it says:
 * a scan recorded as none of its parcel's firsts, a status change other than
 * a return, a tracker change of none of the fields above, and an address
 * change without an address fold to the same facts, so a projection need not
 * read the facts for them.
 */
export function mayChangeDeliveryFacts(event: OrderEvent): boolean {
  switch (event.type) {
    case 'TrackingEventRecorded':
      return event.data.firsts === undefined || event.data.firsts.length > 0
    case 'TrackerStatusChanged':
      return event.data.to === 'returned'
    case 'TrackerUpdated':
      return PARCEL_CHANGES.some((field) => field in event.data.changes)
    case 'OrderUpdated':
      return event.data.changes.shipping_address !== undefined
    case 'FulfillmentCreated':
    case 'FulfillmentUpdated':
      return placeOf(event.data.changes.shipping_address) != null
    default:
      return changesDeliveryFacts(event.type)
  }
}
const FOLDED = new Set<string>([
  'OrderCreated',
  'OrderUpdated',
  'FulfillmentCreated',
  'FulfillmentUpdated',
  'TrackerCreated',
  'TrackerUpdated',
  'TrackingEventRecorded',
  'TrackerStatusChanged',
])

/** Folds one order event into its delivery facts. Pure. */
export function evolveDeliveryFacts(state: OrderDeliveryFacts | undefined, event: OrderEvent): OrderDeliveryFacts {
  if (event.type === 'OrderCreated')
    return {
      order_id: event.data.order_id,
      destination: placeOf(event.data.changes.shipping_address) ?? null,
      fulfillment_destinations: [],
      parcels: [],
    }
  if (!state) throw new Error(`${event.type} before OrderCreated`)
  switch (event.type) {
    case 'OrderUpdated': {
      const destination = placeOf(event.data.changes.shipping_address)
      return destination === undefined ? state : { ...state, destination }
    }
    case 'FulfillmentCreated':
    case 'FulfillmentUpdated': {
      const place = placeOf(event.data.changes.shipping_address)
      if (!place) return state
      return { ...state, fulfillment_destinations: withDestination(state, event.data.fulfillment_id, place) }
    }
    case 'TrackerCreated': {
      const { tracker_id, fulfillment_id, changes, fulfillment } = event.data
      const place = placeOf(fulfillment?.changes.shipping_address)
      const parcel = withChanges(newParcel(tracker_id, fulfillment_id), changes)
      return {
        ...state,
        fulfillment_destinations: place
          ? withDestination(state, fulfillment_id, place)
          : state.fulfillment_destinations,
        parcels: [...state.parcels, parcel],
      }
    }
    case 'TrackerUpdated':
      return mapParcel(state, event.data.tracker_id, (p) => withChanges(p, event.data.changes))
    case 'TrackingEventRecorded': {
      const scan = event.data.event
      return mapParcel(state, event.data.tracker_id, (p) => {
        const firsts = firstsOf(p, scan)
        const seen = scansSeenAfter(p, scan, firsts)
        return firsts.includes('origin') ? { ...seen, origin: scan.address?.country_code ?? null } : seen
      })
    }
    case 'TrackerStatusChanged': {
      const { to, happened_at } = event.data
      return mapParcel(state, event.data.tracker_id, (p) => ({
        ...p,
        returned_at: to === 'returned' ? happened_at : p.returned_at,
      }))
    }
    default:
      return state
  }
}

function withChanges(
  p: ParcelFacts,
  changes: Extract<OrderEvent, { type: 'TrackerUpdated' }>['data']['changes'],
): ParcelFacts {
  const next = { ...p }
  if (changes.carrier !== undefined) next.carrier_code = changes.carrier?.code ?? null
  if (changes.carrier_service !== undefined) next.service_code = changes.carrier_service?.code ?? null
  if (changes.displayable_expected_delivery_date !== undefined)
    next.expected_date = changes.displayable_expected_delivery_date
  if (changes.delivered_at !== undefined) next.delivered_at = changes.delivered_at
  if (changes.shipped_at !== undefined) {
    // What it was promised when it first shipped: the date it had then, with this same change's.
    if (p.shipped_at === null && changes.shipped_at !== null) next.promised_date = next.expected_date
    next.shipped_at = changes.shipped_at
  }
  if (p.shipped_at !== null && p.promised_date === null && changes.displayable_expected_delivery_date)
    next.promised_date = changes.displayable_expected_delivery_date
  return next
}

/** The fulfillment's destination set to `place`, where it was, else added last. */
function withDestination(state: OrderDeliveryFacts, fulfillmentId: number, place: Place): FulfillmentDestination[] {
  const kept = state.fulfillment_destinations
  const at = kept.findIndex(([id]) => id === fulfillmentId)
  return at < 0 ? [...kept, [fulfillmentId, place]] : kept.map((d, i) => (i === at ? [fulfillmentId, place] : d))
}

/** Where a fulfillment goes: its own address, else the order's. */
const destinationOf = (order: OrderDeliveryFacts, fulfillmentId: number) =>
  order.fulfillment_destinations.find(([id]) => id === fulfillmentId)?.[1] ?? order.destination

const mapParcel = (state: OrderDeliveryFacts, id: number, f: (p: ParcelFacts) => ParcelFacts) => ({
  ...state,
  parcels: state.parcels.map((p) => (p.tracker_id === id ? f(p) : p)),
})

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
      returned: false,
    })
  return Object.assign(common, { shipped_on: null, delivered: false, on_time: null, returned: true })
}

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
}

/** The same for the week's postcode prefixes: a delivered parcel to a known postcode only. */
export function applyPrefixContribution(bucket: PrefixBucket, c: Contribution, sign: 1 | -1) {
  if (c.shipped_on === null || c.prefix === null) return
  const byPrefix = bucket.by_prefix[c.prefix] ?? {}
  bump(byPrefix, transitKey(c.ended_on, c.shipped_on), sign)
  if (Object.keys(byPrefix).length === 0) delete bucket.by_prefix[c.prefix]
  else bucket.by_prefix[c.prefix] = byPrefix
}

/** A carrier service's calendar: the days it delivers, and the holidays of the lane's countries. */
export interface DeliveryCalendar {
  delivery_days: readonly Weekday[]
}

export const WORKING_WEEK: DeliveryCalendar = {
  delivery_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
}

const spansByCalendar = new Map<string, Map<string, number>>()

/**
 * The business days of transits (`<delivered>|<shipped>` keys) on one
 * calendar and lane, each counted once: a year's analytics meet the same few
 * thousand spans hundreds of thousands of times.
 */
export function businessDaysOf(calendar: DeliveryCalendar, countries: readonly (string | null)[]) {
  const calendarKey = `${calendar.delivery_days.join(',')}|${countries.join(',')}`
  let spans = spansByCalendar.get(calendarKey)
  if (!spans) {
    if (spansByCalendar.size > 1000) spansByCalendar.clear()
    spans = new Map()
    spansByCalendar.set(calendarKey, spans)
  }
  const known = spans
  return (transit: string) => {
    let days = known.get(transit)
    if (days === undefined) {
      const [delivered, shipped] = transitOf(transit)
      days = countBusinessDays(calendar, countries, shipped, delivered)
      if (known.size > 100_000) known.clear()
      known.set(transit, days)
    }
    return days
  }
}

/** Business days from shipping to delivery: the carrier's delivery days after the ship day, holidays aside. */
export const businessDaysBetween = (
  calendar: DeliveryCalendar,
  countries: readonly (string | null)[],
  shipped: CalendarDate,
  delivered: CalendarDate,
) => businessDaysOf(calendar, countries)(transitKey(delivered, shipped))

function countBusinessDays(
  calendar: DeliveryCalendar,
  countries: readonly (string | null)[],
  shipped: CalendarDate,
  delivered: CalendarDate,
): number {
  let days = 0
  for (let d = addDays(shipped, 1), i = 0; d <= delivered && i < 400; d = addDays(d, 1), i++) {
    if (!calendar.delivery_days.includes(weekdayOf(d))) continue
    if (countries.some((c) => c !== null && isPublicHoliday(c, d))) continue
    days++
  }
  return days
}

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
