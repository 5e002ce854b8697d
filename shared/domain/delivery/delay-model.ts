import { addDays, type CalendarDate } from './calendar.ts'
import {
  type LaneLessons,
  type ParcelDays,
  type Situation,
  businessDaysWithin,
  dayOf,
  situationOn,
  startOfDay,
} from './delays.ts'
import { quantile, sizeOf, type Distribution } from './history.ts'

/*
 * What a lane's delivered parcels teach about open ones (docs/estimation.md):
 * for every day each of them spent in transit, where it stood that morning
 * (business days left to its promise, full business days since its last
 * scan) and whether it then arrived late; and how long its scans were apart.
 */

/** One delivered parcel, as the model learns from it. */
export interface DeliveredParcel {
  /** Its lane: carrier, service and destination country (`laneKey`). */
  lane: string
  shipped_at: number
  delivered_at: number
  promise: CalendarDate
  /** Its carrier events' times, oldest first. */
  scans: readonly number[]
  days: ParcelDays
}

export const laneKey = (carrier: string, service: string | null, destination: string | null) =>
  `${carrier}|${service ?? ''}|${destination ?? ''}`

/** A lane's parcels that stood at one situation: how many, how many arrived late, and the business days they still took. */
interface Cell {
  parcels: number
  late: number
  remaining: Distribution
}

interface LaneModel {
  parcels: number
  cells: Map<string, Cell>
  /** Full business days between consecutive scans. */
  gaps: Distribution
}

export type DelayModel = Map<string, LaneModel>

/** Parcels a lane needs before it teaches anything; parcel-days a situation needs before it speaks. */
export const MIN_LANE_PARCELS = 50
export const MIN_SITUATION_DAYS = 20
/** Gaps between scans a lane needs before its own quiet days replace the rules'. */
export const MIN_GAPS = 200

/** Situations are counted up to three days ahead and three quiet days: beyond, parcels behave alike. */
const cellOf = (s: Situation) => `${Math.min(s.days_to_promise, 3)}|${Math.min(s.quiet_days, 3)}`

const bump = (d: Distribution, key: number, by: number) => {
  const n = (d.get(key) ?? 0) + by
  if (n === 0) d.delete(key)
  else d.set(key, n)
}

/** Adds a delivered parcel to its lane's model (or takes it back, `sign` -1: a window moving on), in place. */
export function learnFrom(model: DelayModel, parcel: DeliveredParcel, sign: 1 | -1 = 1) {
  const { days, promise, scans } = parcel
  const lane = model.get(parcel.lane) ?? { parcels: 0, cells: new Map(), gaps: new Map() }
  model.set(parcel.lane, lane)
  lane.parcels += sign
  const shipped = dayOf(days, parcel.shipped_at)
  const delivered = dayOf(days, parcel.delivered_at)
  const late = delivered > promise
  let scan = 0
  // Each morning it was still on its way: the day after it shipped, up to the day it arrived, two months at most.
  for (let d = addDays(shipped, 1), i = 0; d <= delivered && i < 60; d = addDays(d, 1), i++) {
    const morning = startOfDay(days, d)
    while (scan + 1 < scans.length && scans[scan + 1]! < morning) scan++
    const lastScan = scans[scan] !== undefined && scans[scan]! < morning ? scans[scan]! : parcel.shipped_at
    const situation = situationOn(days, d, promise, dayOf(days, lastScan))
    const key = cellOf(situation)
    const cell = lane.cells.get(key) ?? { parcels: 0, late: 0, remaining: new Map() }
    lane.cells.set(key, cell)
    cell.parcels += sign
    if (late) cell.late += sign
    bump(cell.remaining, businessDaysWithin(days, d, addDays(delivered, 1)), sign)
  }
  for (let i = 1; i < scans.length; i++)
    bump(lane.gaps, businessDaysWithin(days, dayOf(days, scans[i - 1]!), dayOf(days, scans[i]!)), sign)
}

/** What a lane teaches of its open parcels; undefined while it has fewer than MIN_LANE_PARCELS delivered. */
export function lessonsOf(model: DelayModel, lane: string): LaneLessons | undefined {
  const learned = model.get(lane)
  if (!learned || learned.parcels < MIN_LANE_PARCELS) return undefined
  return {
    quiet_days: sizeOf(learned.gaps) >= MIN_GAPS ? (quantile(learned.gaps, 0.95) ?? null) : null,
    outlook(situation) {
      const cell = learned.cells.get(cellOf(situation))
      if (!cell || cell.parcels < MIN_SITUATION_DAYS) return undefined
      return { late_share: cell.late / cell.parcels, remaining_days: quantile(cell.remaining, 0.5) ?? 0 }
    },
  }
}
