import t from 'tap'
import { kpisOf } from '../../console/kpis.ts'
import type { PerformanceRow } from '../../shared/domain/delivery/performance.ts'

/* The analytics page's headline: each figure with its change from the period before, none for a low sample. */

const row = (over: Partial<PerformanceRow> = {}): PerformanceRow => ({
  key: '',
  group: {},
  delivered: 120,
  returned: 2,
  transit_business_days: { p50: 2, p90: 4 },
  on_time_rate: 0.9,
  failed_attempt_rate: 0.05,
  exception_rate: 0.01,
  returned_rate: 0.02,
  ...over,
})
const byLabel = (kpis: ReturnType<typeof kpisOf>['kpis']) => Object.fromEntries(kpis.map((k) => [k.label, k]))

t.test('changes are in points and days, signed, against the period before', async (t) => {
  // Given a period better on time and a day faster at the median than the one before
  const { kpis, low } = kpisOf(
    row(),
    row({ on_time_rate: 0.85, transit_business_days: { p50: 3, p90: 4 }, failed_attempt_rate: 0.05 }),
  )
  const k = byLabel(kpis)
  // Then each figure says so in its own unit
  t.equal(low, false)
  t.same(k['on time against their promise'], {
    label: 'on time against their promise',
    value: '90 %',
    change: '+5 points',
  })
  t.equal(k['median transit, business days']!.change, '−1 d')
  t.equal(k['9 in 10 within, business days']!.change, '±0 d')
  t.equal(k['failed delivery attempts']!.change, '±0 points')
  t.equal(k['parcels delivered']!.value, '120')
})

t.test('a low sample hides its 90th percentile and every change', async (t) => {
  // Given 12 parcels this period
  const { kpis, low, n } = kpisOf(row({ delivered: 12 }), row())
  const k = byLabel(kpis)
  t.equal(low, true)
  t.equal(n, 12)
  t.equal(k['9 in 10 within, business days']!.value, '–')
  t.same(
    kpis.map((x) => x.change),
    kpis.map(() => null),
  )
  // And a period whose one before was a low sample shows no change either
  t.same(
    kpisOf(row(), row({ delivered: 5 })).kpis.map((x) => x.change),
    kpis.map(() => null),
  )
})

t.test('no parcel: every figure a dash', async (t) => {
  const { kpis, n } = kpisOf(undefined, undefined)
  t.equal(n, 0)
  t.same(
    kpis.slice(1).map((k) => k.value),
    ['–', '–', '–', '–', '–', '–'],
  )
})
