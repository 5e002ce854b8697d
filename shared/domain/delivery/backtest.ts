import { addDays, type CalendarDate } from './calendar.ts'
import { type ConfiguredService, estimateService } from './estimate.ts'
import { addToHistory, learnedFor, type Histories, RECENT_DAYS } from './history.ts'
import { businessDaysBetween, WORKING_WEEK } from './business-days.ts'
import type { Contribution } from './sums.ts'

/*
 * How good the learned estimate is: history is replayed in time order; each
 * parcel delivered after `since` gets, at the moment it shipped, the estimate
 * it would have received from the deliveries before it (in the window), and
 * the same from the configured transit days; both are scored against the day
 * it was delivered, in the service's business days.
 */

/** A delivered parcel as the backtest reads it: its contribution, and when it shipped and was delivered. */
export interface DeliveredParcel {
  lane: Contribution
  shipped_at: number
  delivered_at: number
}

export interface Score {
  count: number
  /** Shares of the parcels: delivered on the estimated day, within one business day of it, by the safe date. */
  exact: number
  within_one: number
  by_safe_date: number
  /** Mean absolute error, in business days. */
  mean_absolute_error: number
}

export interface BacktestRow {
  carrier_code: string
  service_code: string
  learned: Score
  /** Null where the service has no configured transit days for these lanes. */
  configured: Score | null
}

interface Tally {
  count: number
  exact: number
  within: number
  safe: number
  error: number
}
const tally = (): Tally => ({ count: 0, exact: 0, within: 0, safe: 0, error: 0 })
const scoreOf = (t: Tally): Score => ({
  count: t.count,
  exact: t.count && t.exact / t.count,
  within_one: t.count && t.within / t.count,
  by_safe_date: t.count && t.safe / t.count,
  mean_absolute_error: t.count && t.error / t.count,
})

/** A service that is not configured: estimated from history alone, Monday to Friday, shipped the day it ships. */
const unconfigured = (carrier_code: string, service_code: string): ConfiguredService => ({
  id: 0,
  carrier_code,
  service_code,
  name: service_code,
  transit_days: [],
  cutoff_time: '23:59',
  time_zone: 'UTC',
  pickup_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
  delivery_days: [...WORKING_WEEK.delivery_days],
})

export function backtest(
  parcels: readonly DeliveredParcel[],
  options: { since: CalendarDate; windowDays: number; services: readonly ConfiguredService[] },
): BacktestRow[] {
  const serviceOf = (l: Contribution) =>
    options.services.find((s) => s.carrier_code === l.carrier_code && s.service_code === l.service_code) ??
    unconfigured(l.carrier_code, l.service_code)
  const daysOf = (p: DeliveredParcel) =>
    businessDaysBetween(serviceOf(p.lane), [p.lane.origin, p.lane.destination], p.lane.shipped_on!, p.lane.ended_on)
  const laneOf = (p: DeliveredParcel) => ({ ...p.lane, prefix: p.lane.prefix })
  // The moments that matter, in order: a delivery teaches, a shipment asks.
  const moments = [
    ...parcels.map((p) => ({ at: p.delivered_at, kind: 'delivered' as const, p })),
    ...parcels
      .filter((p) => p.lane.ended_on > options.since)
      .map((p) => ({ at: p.shipped_at, kind: 'shipped' as const, p })),
  ].sort((a, b) => a.at - b.at || (a.kind === 'delivered' ? -1 : 1))
  const histories: Histories = { window: new Map(), recent: new Map() }
  const learnedFrom: DeliveredParcel[] = []
  // How many of the deliveries learned from have left the window, and the recent part of it.
  const forgotten = { window: 0, recent: 0 }
  const tallies = new Map<string, { learned: Tally; configured: Tally; hasConfigured: boolean }>()
  for (const m of moments) {
    if (m.kind === 'delivered') {
      addToHistory(histories.window, laneOf(m.p), daysOf(m.p), 1)
      addToHistory(histories.recent, laneOf(m.p), daysOf(m.p), 1)
      learnedFrom.push(m.p)
      continue
    }
    // Deliveries older than the window (and than its recent part) are forgotten, as the service forgets them.
    for (const [part, days] of [
      ['window', options.windowDays],
      ['recent', RECENT_DAYS],
    ] as const) {
      const oldest = addDays(m.p.lane.shipped_on!, -days)
      while (forgotten[part] < learnedFrom.length && learnedFrom[forgotten[part]]!.lane.ended_on < oldest) {
        const old = learnedFrom[forgotten[part]++]!
        addToHistory(histories[part], laneOf(old), daysOf(old), -1)
      }
    }
    const service = serviceOf(m.p.lane)
    const request = {
      origin: { country_code: m.p.lane.origin ?? undefined },
      destination: { country_code: m.p.lane.destination ?? undefined },
      merchant_shipping_date: m.p.lane.shipped_on!,
    }
    const shipped = new Date(m.p.shipped_at * 1000)
    const learned = estimateService(
      service,
      request,
      shipped,
      learnedFor(histories, { ...m.p.lane, postcode: m.p.lane.prefix }),
    )
    const configured = estimateService(service, request, shipped)
    const key = `${m.p.lane.carrier_code}|${m.p.lane.service_code}`
    const entry = tallies.get(key) ?? { learned: tally(), configured: tally(), hasConfigured: false }
    tallies.set(key, entry)
    const score = (t: Tally, estimate: NonNullable<typeof configured>) => {
      const actual = m.p.lane.ended_on
      const [from, to] =
        actual < estimate.delivery_date ? [actual, estimate.delivery_date] : [estimate.delivery_date, actual]
      const error = businessDaysBetween(service, [m.p.lane.origin, m.p.lane.destination], from, to)
      t.count++
      t.exact += actual === estimate.delivery_date ? 1 : 0
      t.within += error <= 1 ? 1 : 0
      t.safe += actual <= estimate.safe_delivery_date ? 1 : 0
      t.error += error
    }
    // The learned estimate falls back to the configured days where history is too thin, as the service does.
    if (learned) score(entry.learned, learned)
    if (configured) {
      score(entry.configured, configured)
      entry.hasConfigured = true
    }
  }
  return [...tallies]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, t]) => {
      const [carrier_code, service_code] = key.split('|') as [string, string]
      return {
        carrier_code,
        service_code,
        learned: scoreOf(t.learned),
        configured: t.hasConfigured ? scoreOf(t.configured) : null,
      }
    })
}
