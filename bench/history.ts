/**
 * Synthetic delivery history for the estimation benchmarks: parcels on known
 * per-lane transit distributions (skewed, in business days), shipped on
 * working days and delivered after that many of the carrier's business days,
 * holidays skipped; one carrier slows down in December. Deterministic: a
 * seeded generator.
 */
import {
  addDays,
  type CalendarDate,
  instantOf,
  isPublicHoliday,
  weekdayOf,
} from '../shared/domain/delivery/calendar.ts'
import type { ConfiguredService } from '../shared/domain/delivery/estimate.ts'
import { businessDaysBetween } from '../shared/domain/delivery/business-days.ts'
import type { Contribution } from '../shared/domain/delivery/sums.ts'
import type { DeliveredParcel } from '../shared/domain/delivery/backtest.ts'
import { weekSumsOf } from '../projectors/deliveries/delivery-stats.ts'
import { laneKey } from '../shared/domain/delivery/delay-model.ts'
import type { ParcelStory } from '../shared/domain/delivery/delay-backtest.ts'
import { afterBusinessDays, parcelDaysTo } from '../shared/domain/delivery/delays.ts'
import { WORKING_WEEK } from '../shared/domain/delivery/business-days.ts'

/** A small seeded generator (mulberry32): the same history every run. */
export function seeded(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A transit distribution: business days and their weights. */
export type Shape = readonly (readonly [days: number, weight: number])[]

export interface Lane {
  service: ConfiguredService
  origin: string
  destination: string
  shape: Shape
  /** The distribution in December, where the carrier slows down. */
  december?: Shape
}

const draw = (shape: Shape, r: number) => {
  const total = shape.reduce((s, [, w]) => s + w, 0)
  let x = r * total
  for (const [days, w] of shape) {
    x -= w
    if (x < 0) return days
  }
  return shape.at(-1)![0]
}

/** The most likely number of days of a distribution: the best any estimate can hit. */
export const modeOf = (shape: Shape) => [...shape].sort((a, b) => b[1] - a[1])[0]![0]

export const service = (carrier: string, code: string, days: number, deliveryDays = 5): ConfiguredService => ({
  id: 1,
  carrier_code: carrier,
  service_code: code,
  name: `${carrier} ${code}`,
  transit_days: [{ origin: null, destination: null, days }],
  cutoff_time: '15:00',
  time_zone: 'Europe/Paris',
  pickup_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  delivery_days: (['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const).slice(0, deliveryDays),
})

export interface GeneratedParcel extends DeliveredParcel {
  /** The mode of the distribution it was drawn from. */
  mode: number
  days: number
}

/** `perDay` parcels a working day from `from` to `to`, spread over the lanes. */
export function generateHistory(
  lanes: readonly Lane[],
  from: CalendarDate,
  to: CalendarDate,
  perDay: number,
  seed = 1,
) {
  const random = seeded(seed)
  const parcels: GeneratedParcel[] = []
  for (let day = from; day <= to; day = addDays(day, 1)) {
    // Carriers pick up on working days that are not French public holidays (every lane leaves from France).
    if (weekdayOf(day) === 'saturday' || weekdayOf(day) === 'sunday' || isPublicHoliday('FR', day)) continue
    for (let n = 0; n < perDay; n++) {
      const lane = lanes[Math.floor(random() * lanes.length)]!
      const shape = lane.december && day >= `${day.slice(0, 4)}-12-01` ? lane.december : lane.shape
      const days = draw(shape, random())
      // Delivered on the carrier's `days`-th business day after shipping, holidays of both countries skipped.
      let delivered = day
      for (let counted = 0; counted < days; ) {
        delivered = addDays(delivered, 1)
        if (businessDaysBetween(lane.service, [lane.origin, lane.destination], addDays(delivered, -1), delivered) === 1)
          counted++
      }
      const postcode = String(10 + Math.floor(random() * 80))
      const lane_: Contribution = {
        carrier_code: lane.service.carrier_code,
        service_code: lane.service.service_code,
        origin: lane.origin,
        destination: lane.destination,
        ended_on: delivered,
        shipped_on: day,
        prefix: postcode,
        delivered: true,
        on_time: null,
        promise_gap: null,
        failed_attempt: random() < 0.03,
        exception: random() < 0.01,
        returned: false,
      }
      parcels.push({
        lane: lane_,
        shipped_at: instantOf('Europe/Paris', day, '11:00').getTime() / 1000,
        delivered_at: instantOf('Europe/Paris', delivered, '12:00').getTime() / 1000,
        mode: modeOf(shape),
        days,
      })
    }
  }
  return parcels
}

/** The read store documents the delivery history projection would hold for these parcels: the weeks' sums. */
export const bucketWritesOf = (accountId: number, parcels: readonly DeliveredParcel[]) =>
  weekSumsOf(
    accountId,
    parcels.map((p) => p.lane),
  )

/** A lane of the delays' synthetic year: its transit distribution, and its promise (the usual transit). */
export interface DelayLane {
  carrier: string
  service: string
  destination: string
  shape: Shape
  december?: Shape
}

/**
 * A synthetic year's five lanes from France, as the backtests and the delays
 * benchmark draw them: each carrier service's days to deliver, skewed, and
 * UPS slowing down in December.
 */
export const SYNTHETIC_LANES: readonly DelayLane[] = [
  {
    carrier: 'colissimo',
    service: 'home',
    destination: 'FR',
    shape: [
      [2, 60],
      [3, 25],
      [4, 10],
      [6, 5],
    ],
  },
  {
    carrier: 'colissimo',
    service: 'home',
    destination: 'BE',
    shape: [
      [3, 55],
      [4, 30],
      [5, 10],
      [7, 5],
    ],
  },
  {
    carrier: 'dhl',
    service: 'express',
    destination: 'DE',
    shape: [
      [1, 70],
      [2, 20],
      [3, 10],
    ],
  },
  {
    carrier: 'ups',
    service: 'standard',
    destination: 'ES',
    shape: [
      [3, 50],
      [4, 30],
      [5, 15],
      [8, 5],
    ],
    december: [
      [5, 50],
      [6, 30],
      [7, 15],
      [10, 5],
    ],
  },
  {
    carrier: 'chronopost',
    service: '13h',
    destination: 'FR',
    shape: [
      [1, 85],
      [2, 12],
      [3, 3],
    ],
  },
]

/** A synthetic parcel and the first morning its scans betrayed it: the best any detection could do. */
export interface GeneratedStory extends ParcelStory {
  /** The first morning (Unix seconds) it lacked a scan a parcel on time would have had; null if it never did. */
  first_sign: number | null
}

/**
 * A year of delivered parcels with their scans, `perDay` a working day from
 * France: each promised its lane's usual transit, scanned when it ships and
 * at the end of each business day of its journey (one scan in ten is
 * missed, as carriers do). A parcel that takes longer was held somewhere
 * without a scan: in the line-haul for three in four, on its last leg (where
 * nothing shows it) for the rest. One carrier is slower in December.
 */
export function generateDelayStories(
  lanes: readonly DelayLane[],
  from: CalendarDate,
  to: CalendarDate,
  perDay: number,
) {
  const random = seeded(7)
  const stories: GeneratedStory[] = []
  for (let day = from; day <= to; day = addDays(day, 1)) {
    if (weekdayOf(day) === 'saturday' || weekdayOf(day) === 'sunday' || isPublicHoliday('FR', day)) continue
    for (let n = 0; n < perDay; n++) {
      const lane = lanes[Math.floor(random() * lanes.length)]!
      const promised = modeOf(lane.shape)
      const shape = lane.december && day >= `${day.slice(0, 4)}-12-01` ? lane.december : lane.shape
      const transit = draw(shape, random())
      const days = parcelDaysTo({ country: lane.destination, state: null }, WORKING_WEEK)
      const at = (d: CalendarDate, hour: number) =>
        instantOf(days.zone, d, `${String(hour).padStart(2, '0')}:00`).getTime() / 1000
      const shipped_at = instantOf('Europe/Paris', day, '11:00').getTime() / 1000
      const held = Math.max(0, transit - promised)
      // Where the hold happens: before leg `k` of the usual journey (1 … promised).
      const k =
        held === 0
          ? Number.POSITIVE_INFINITY
          : promised > 1 && random() < 0.75
            ? 1 + Math.floor(random() * (promised - 1))
            : promised
      const scans = [shipped_at]
      let firstSign: number | null = null
      for (let leg = 1; leg < transit; leg++) {
        const moving = leg < k || leg >= k + held
        if (!moving && firstSign === null) firstSign = at(afterBusinessDays(days, day, leg + 1), 0)
        if (moving && random() >= 1 / 10)
          scans.push(at(afterBusinessDays(days, day, leg), 9 + Math.floor(random() * 8)))
      }
      const delivered_at = at(afterBusinessDays(days, day, transit), 10 + Math.floor(random() * 6))
      scans.push(delivered_at)
      stories.push({
        lane: laneKey(lane.carrier, lane.service, lane.destination),
        carrier_code: lane.carrier,
        service_code: lane.service,
        created_at: shipped_at - 3600,
        shipped_at,
        delivered_at,
        promise: afterBusinessDays(days, day, promised),
        scans,
        days,
        first_sign: firstSign,
      })
    }
  }
  return stories
}
