import type { CarrierServiceConfig } from '../events/carrier-service-events.ts'
import type { LaneQuery, LearnedTransit } from './history.ts'
import { addDays, instantOf, isPublicHoliday, localDateTime, weekdayOf, type CalendarDate } from './calendar.ts'

/** A carrier service as the account configured it for delivery date estimation. */
export interface ConfiguredService extends CarrierServiceConfig {
  id: number
  carrier_code: string
  service_code: string
}

export interface EstimationRequest {
  origin?: { country_code?: string; city?: string }
  destination?: { country_code?: string; city?: string }
  merchant_shipping_date?: CalendarDate
}

export interface Estimation {
  carrier_code: string
  service_code: string
  delivery_date: CalendarDate
  safe_delivery_date: CalendarDate
  cutoff_datetime_utc: string
  /** `history`: learned from the parcels delivered on the lane; `configured`: the merchant's transit days. */
  basis: 'history' | 'configured'
  /** The parcels the history counts; null for a configured estimate. */
  sample_size: number | null
}

/** A year of days: no configuration can need more, and a loop over days never runs away. */
const MAX_DAYS = 366

/**
 * The lane's transit days: the entry for exactly this origin and destination,
 * else one that leaves a side to its default (null), else the default lane.
 */
export function transitDays(service: ConfiguredService, origin?: string, destination?: string): number | undefined {
  const matches = (lane: string | null, asked?: string) => lane === null || lane === asked
  const candidates = service.transit_days.filter(
    (l) => matches(l.origin, origin) && matches(l.destination, destination),
  )
  const specificity = (l: (typeof candidates)[number]) => (l.origin === null ? 0 : 2) + (l.destination === null ? 0 : 1)
  return candidates.sort((a, b) => specificity(b) - specificity(a))[0]?.days
}

/**
 * Estimates one carrier service. Pure: the time comes in as `now`.
 * - ship day: the merchant's shipping date when it is after today, else today if before the cutoff, else tomorrow;
 *   moved to the next pickup day that is not a public holiday at the origin;
 * - delivery: `days` business days after the ship day, skipping days the carrier does not deliver and
 *   public holidays of the lane's countries (shipped Monday with 2 days arrives Wednesday);
 * - with a learned transit (`learned`), its median is the days and its 95th percentile the safe date;
 * - safe date: a further margin of max(1, ⌈days / 3⌉) business days, the slack a lane's late parcels need
 *   (with a learned transit, at least one business day after the delivery date);
 * - cutoff: the ship day's cutoff, in UTC: the next one at or after now.
 */
export function estimateService(
  service: ConfiguredService,
  request: EstimationRequest,
  now: Date,
  learned?: LearnedTransit,
): Estimation | undefined {
  const origin = request.origin?.country_code
  const destination = request.destination?.country_code
  const days = learned?.days ?? transitDays(service, origin, destination)
  if (days === undefined || service.pickup_days.length === 0 || service.delivery_days.length === 0) return undefined
  const holiday = (d: CalendarDate) => [origin, destination].some((c) => c !== undefined && isPublicHoliday(c, d))
  const pickupDay = (d: CalendarDate) =>
    service.pickup_days.includes(weekdayOf(d)) && !(origin && isPublicHoliday(origin, d))
  const businessDay = (d: CalendarDate) => service.delivery_days.includes(weekdayOf(d)) && !holiday(d)

  const local = localDateTime(service.time_zone, now)
  // A shipping date in the past is today: the parcel cannot leave before now.
  const asked = request.merchant_shipping_date
  let ship = asked !== undefined && asked > local.date ? asked : local.date
  if (ship === local.date && local.time >= service.cutoff_time) ship = addDays(ship, 1)
  for (let i = 0; !pickupDay(ship); i++) {
    if (i > MAX_DAYS) return undefined
    ship = addDays(ship, 1)
  }
  const afterBusinessDays = (from: CalendarDate, n: number) => {
    let d = from
    for (let counted = 0, i = 0; counted < n; i++) {
      // One working day a week at the least, plus a year of holidays, is the furthest a configuration can reach.
      if (i > MAX_DAYS + 7 * n) return undefined
      d = addDays(d, 1)
      if (businessDay(d)) counted++
    }
    return d
  }
  const delivery = afterBusinessDays(ship, days)
  // Learned: the 95th percentile, a business day after the delivery date at the least; configured: a third more.
  const margin = afterBusinessDays(delivery ?? ship, learned ? 1 : Math.max(1, Math.ceil(days / 3)))
  const percentile = learned && afterBusinessDays(ship, learned.safe_days)
  const safe = percentile && margin && percentile > margin ? percentile : margin
  if (!delivery || !safe) return undefined
  return {
    carrier_code: service.carrier_code,
    service_code: service.service_code,
    delivery_date: delivery,
    safe_delivery_date: safe,
    cutoff_datetime_utc: instantOf(service.time_zone, ship, service.cutoff_time).toISOString(),
    basis: learned ? 'history' : 'configured',
    sample_size: learned?.sample_size ?? null,
  }
}

/** The deterministic rule: earliest delivery, then earliest safe date, then lowest carrier and service code. */
export function bestEstimation(estimations: readonly Estimation[]): Estimation | null {
  const key = (e: Estimation) => [e.delivery_date, e.safe_delivery_date, e.carrier_code, e.service_code]
  return (
    [...estimations].sort((a, b) => {
      const [x, y] = [key(a), key(b)]
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1
      return 0
    })[0] ?? null
  )
}

/** Where and how a parcel goes: its carrier service, the countries it leaves and reaches, the destination's postcode. */
export interface ParcelLane {
  carrier_code: string | undefined
  service_code: string | undefined
  origin: string | undefined
  destination: string | undefined
  postcode: string | undefined
}

/**
 * What a parcel's configured carrier service promises for its lane, shipped
 * at `shippedAt` (Unix seconds): from what the lane's deliveries taught
 * (`learned`) or else the configured transit days. Undefined when the
 * account has not configured its service.
 */
export function estimateParcel(
  lane: ParcelLane,
  shippedAt: number,
  services: readonly ConfiguredService[],
  learned?: (lane: LaneQuery) => LearnedTransit | undefined,
): Estimation | undefined {
  const service = services.find((s) => s.carrier_code === lane.carrier_code && s.service_code === lane.service_code)
  if (!service) return undefined
  const shipped = new Date(shippedAt * 1000)
  return estimateService(
    service,
    {
      origin: { country_code: lane.origin },
      destination: { country_code: lane.destination },
      merchant_shipping_date: shipped.toISOString().slice(0, 10),
    },
    shipped,
    learned?.({ ...lane, carrier_code: service.carrier_code, service_code: service.service_code }),
  )
}
