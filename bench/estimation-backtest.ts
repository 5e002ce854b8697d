/**
 * How good the learned delivery dates are: a year of synthetic deliveries
 * on known per-lane distributions (skewed; UPS slowing down in December;
 * holidays of each lane's countries skipped), replayed by the same backtest
 * as `shiplog estimation backtest`. Targets: ≥ 95 % of parcels delivered on
 * or before `safe_delivery_date`, and exact-day hits within 3 points of the
 * best possible (the generator's own mode). BENCH_PARCELS_PER_DAY sets the volume.
 */
import { backtest } from '../shared/domain/delivery/backtest.ts'
import type { ConfiguredService } from '../shared/domain/delivery/estimate.ts'
import { generateHistory, type Lane, SYNTHETIC_LANES, service } from './history.ts'
import { conditions } from './support.ts'

const PER_DAY = Number(process.env.BENCH_PARCELS_PER_DAY ?? 300)
const SINCE = '2026-02-01'
/** Each carrier's service as configured, with its promised days. */
const services: Record<string, ConfiguredService> = {
  colissimo: service('colissimo', 'home', 2),
  dhl: service('dhl', 'express', 1),
  ups: service('ups', 'standard', 3),
  chronopost: service('chronopost', '13h', 1, 6),
}
const lanes: Lane[] = SYNTHETIC_LANES.map(({ carrier, destination, shape, december }) => ({
  service: services[carrier]!,
  origin: 'FR',
  destination,
  shape,
  december,
}))

const started = performance.now()
const parcels = generateHistory(lanes, '2026-01-01', '2026-12-31', PER_DAY)
const generated = performance.now()
const rows = backtest(parcels, { since: SINCE, windowDays: 90, services: Object.values(services) })
const scored = parcels.filter((p) => p.lane.ended_on > SINCE)

console.log(
  `estimation-backtest: ${parcels.length.toLocaleString('en')} synthetic deliveries of 2026 (${PER_DAY} a working day, 5 lanes), scored after ${SINCE}, 90-day window; generated in ${((generated - started) / 1000).toFixed(1)} s, replayed in ${((performance.now() - generated) / 1000).toFixed(1)} s; ${conditions()}`,
)
const pct = (n: number) => `${(n * 100).toFixed(1)} %`.padStart(8)
console.log(
  `${'carrier service'.padEnd(20)}${'parcels'.padStart(8)}${'exact'.padStart(9)}${'best'.padStart(9)}${'gap'.padStart(7)}${'by safe'.padStart(9)}${'MAE'.padStart(6)}  | configured: exact  by safe  MAE`,
)
let worstGap = 0
let worstSafe = 1
for (const r of rows) {
  const mine = scored.filter((p) => p.lane.carrier_code === r.carrier_code && p.lane.service_code === r.service_code)
  const best = mine.filter((p) => p.days === p.mode).length / mine.length
  const gap = (best - r.learned.exact) * 100
  worstGap = Math.max(worstGap, gap)
  worstSafe = Math.min(worstSafe, r.learned.by_safe_date)
  const c = r.configured
  console.log(
    `${`${r.carrier_code}/${r.service_code}`.padEnd(20)}${String(r.learned.count).padStart(8)}${pct(r.learned.exact)}${pct(best)}${gap.toFixed(1).padStart(7)}${pct(r.learned.by_safe_date)}${r.learned.mean_absolute_error.toFixed(2).padStart(6)}  | ${c ? `${pct(c.exact)}${pct(c.by_safe_date)}${c.mean_absolute_error.toFixed(2).padStart(6)}` : 'none'}`,
  )
}
console.log(
  `worst by safe date ${(worstSafe * 100).toFixed(1)} % (target ≥ 95 %); worst exact-day gap to the best possible ${worstGap.toFixed(1)} points (target ≤ 3)`,
)
