import type { PerformanceRow } from '../shared/domain/delivery/performance.ts'

/*
 * The analytics page's headline figures for a period, each with its n and
 * its change from the period before in absolute units (points, days). Below
 * LOW_SAMPLE delivered parcels a change says nothing and is not shown, nor
 * is the 90th percentile.
 */

export const LOW_SAMPLE = 30

export interface Kpi {
  label: string
  value: string
  /** "+3 points", "−0.5 d": null when either period is a low sample or the figure is missing. */
  change: string | null
}

const percent = (rate: number | null) => (rate === null ? '–' : `${Math.round(rate * 100)} %`)
const days = (d: number | null) => (d === null ? '–' : `${d} d`)
const signed = (x: number, unit: string) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x)} ${unit}`
const points = (a: number | null, b: number | null) =>
  a === null || b === null ? null : signed(Math.round((a - b) * 100), 'points')
const dayChange = (a: number | null, b: number | null) =>
  a === null || b === null ? null : signed(Math.round((a - b) * 10) / 10, 'd')

export function kpisOf(now: PerformanceRow | undefined, before: PerformanceRow | undefined) {
  const n = now?.delivered ?? 0
  const low = n < LOW_SAMPLE
  const compared = !low && (before?.delivered ?? 0) >= LOW_SAMPLE
  const change = (f: (a: PerformanceRow, b: PerformanceRow) => string | null) =>
    compared && now && before ? f(now, before) : null
  const kpis: Kpi[] = [
    { label: 'parcels delivered', value: String(n), change: null },
    {
      label: 'on time against their promise',
      value: percent(now?.on_time_rate ?? null),
      change: change((a, b) => points(a.on_time_rate, b.on_time_rate)),
    },
    {
      label: 'median transit, business days',
      value: days(now?.transit_business_days.p50 ?? null),
      change: change((a, b) => dayChange(a.transit_business_days.p50, b.transit_business_days.p50)),
    },
    {
      label: '9 in 10 within, business days',
      value: low ? '–' : days(now?.transit_business_days.p90 ?? null),
      change: change((a, b) => dayChange(a.transit_business_days.p90, b.transit_business_days.p90)),
    },
    {
      label: 'failed delivery attempts',
      value: percent(now?.failed_attempt_rate ?? null),
      change: change((a, b) => points(a.failed_attempt_rate, b.failed_attempt_rate)),
    },
    {
      label: 'exceptions',
      value: percent(now?.exception_rate ?? null),
      change: change((a, b) => points(a.exception_rate, b.exception_rate)),
    },
    {
      label: 'returned',
      value: percent(now?.returned_rate ?? null),
      change: change((a, b) => points(a.returned_rate, b.returned_rate)),
    },
  ]
  return { kpis, n, low }
}
