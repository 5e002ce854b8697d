import type { DelayRules } from '../events/account-events.ts'
import { addDays, type CalendarDate } from './calendar.ts'
import { type DeliveredParcel, type DelayModel, learnFrom, lessonsOf } from './delay-model.ts'
import { DAY_SECONDS, dayOf, delayVerdict, startOfDay } from './delays.ts'

/*
 * How early and how right delay detection is: the log's delivered parcels
 * replayed in time order. Each parcel is looked at every morning of its
 * journey (in its destination's zone), with only the scans it had by then
 * and the model its account's latest delivered parcels made by the day it
 * shipped, as the sweep would have; the first morning it has a delay
 * (at risk, stalled or late) is when it was flagged.
 */

/** A delivered parcel of the log, as the backtest replays it. */
export interface ParcelStory extends DeliveredParcel {
  carrier_code: string
  service_code: string
  created_at: number
}

export interface DelayScore {
  parcels: number
  /** Delivered after the end of their promised day. */
  late: number
  /** Of the late ones: flagged at least 24 hours before the promise passed, and before it at all. */
  flagged_a_day_early: number
  flagged_before: number
  /** Median hours between a late parcel's flag and its promise's end (flagged before it only); null with none. */
  median_lead_hours: number | null
  /** Parcels flagged before their promise passed, and those of them delivered on time after all. */
  flagged: number
  false_flags: number
}

export interface DelayBacktestRow extends DelayScore {
  carrier_code: string
  service_code: string
}

interface Tally {
  parcels: number
  late: number
  early: number
  before: number
  leads: number[]
  flagged: number
  false: number
}
const tally = (): Tally => ({ parcels: 0, late: 0, early: 0, before: 0, leads: [], flagged: 0, false: 0 })

const median = (xs: number[]) => {
  if (xs.length === 0) return null
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

export const scoreOf = (t: Tally): DelayScore => ({
  parcels: t.parcels,
  late: t.late,
  flagged_a_day_early: t.early,
  flagged_before: t.before,
  median_lead_hours: median(t.leads),
  flagged: t.flagged,
  false_flags: t.false,
})

/** The first morning a parcel had a delay before its promise's end, as the sweep would have found it; null if none. */
function flaggedAt(story: ParcelStory, model: DelayModel, rules: DelayRules, promiseEnd: number): number | null {
  const { days, scans } = story
  const lessons = lessonsOf(model, story.lane)
  const delivered = dayOf(days, story.delivered_at)
  for (let d = addDays(dayOf(days, story.shipped_at), 1); d <= delivered; d = addDays(d, 1)) {
    const morning = startOfDay(days, d)
    if (morning >= promiseEnd) return null
    let last: number | null = null
    for (const s of scans) if (s < morning) last = s
    const progress = {
      created_at: story.created_at,
      shipped_at: story.shipped_at,
      last_scan_at: last,
      promise: story.promise,
    }
    if (delayVerdict(progress, days, rules, lessons, morning).delay) return morning
  }
  return null
}

/**
 * The backtest of one account's parcels (any order), per carrier service and
 * in all, scoring those delivered from `since` on; the model learns from the
 * account's latest `sample` delivered parcels, as the service's does.
 */
export function delayBacktest(
  stories: readonly ParcelStory[],
  options: { since: CalendarDate; rules: DelayRules; sample: number },
): { rows: DelayBacktestRow[]; total: DelayScore } {
  const byShipping = [...stories].sort((a, b) => a.shipped_at - b.shipped_at)
  const byDelivery = [...stories].sort((a, b) => a.delivered_at - b.delivered_at)
  const model: DelayModel = new Map()
  const tallies = new Map<string, Tally>()
  const total = tally()
  let learned = 0
  for (const story of byShipping) {
    // The model as it stood the day the parcel shipped: every parcel delivered before, the latest `sample` of them.
    while (learned < byDelivery.length && byDelivery[learned]!.delivered_at < story.shipped_at) {
      learnFrom(model, byDelivery[learned++]!)
      if (learned > options.sample) learnFrom(model, byDelivery[learned - options.sample - 1]!, -1)
    }
    if (dayOf(story.days, story.delivered_at) < options.since) continue
    const key = `${story.carrier_code}/${story.service_code}`
    const row = tallies.get(key) ?? tally()
    tallies.set(key, row)
    const promiseEnd = startOfDay(story.days, addDays(story.promise, 1))
    const late = story.delivered_at >= promiseEnd
    const flag = flaggedAt(story, model, options.rules, promiseEnd)
    for (const t of [row, total]) {
      t.parcels++
      if (late) t.late++
      if (flag !== null) {
        t.flagged++
        if (!late) t.false++
      }
      if (late && flag !== null) {
        t.before++
        if (promiseEnd - flag >= DAY_SECONDS) t.early++
        t.leads.push((promiseEnd - flag) / 3600)
      }
    }
  }
  const rows = [...tallies]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, t]) => {
      const [carrier_code, service_code] = key.split('/') as [string, string]
      return { carrier_code, service_code, ...scoreOf(t) }
    })
  return { rows, total: scoreOf(total) }
}
