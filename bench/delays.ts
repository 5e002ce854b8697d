/**
 * Delay detection. First, how fast the sweep finds the trackers due a look
 * in an account of 1,000,000 open trackers (target < 1 s), beside reading
 * every tracker of the account, which is what it avoids. Then how early and
 * how right detection is over a synthetic year (skewed lanes, UPS slower in
 * December), replayed by the same backtest as `shiplog delays backtest`:
 * targets ≥ 70 % of late parcels flagged at least 24 hours before their
 * promise passed, ≤ 20 % of flags false; beside the share whose own scans
 * showed it that early (the first morning each lacked a scan a parcel on
 * time had). BENCH_TRACKERS and BENCH_PARCELS_PER_DAY set the sizes.
 */
import { type DelayScore, delayBacktest } from '../shared/domain/delivery/delay-backtest.ts'
import { DAY_SECONDS, DEFAULT_DELAY_RULES, startOfDay } from '../shared/domain/delivery/delays.ts'
import { addDays } from '../shared/domain/delivery/calendar.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { TrackerIndexDoc } from '../projectors/orders/tracker-index.ts'
import { generateDelayStories, modeOf, SYNTHETIC_LANES } from './history.ts'
import { benchStores, conditions, ms, percentile } from './support.ts'

const TRACKERS = Number(process.env.BENCH_TRACKERS ?? 1_000_000)
const PER_DAY = Number(process.env.BENCH_PARCELS_PER_DAY ?? 200)
const SINCE = '2026-03-01'

console.log(`delays: ${TRACKERS.toLocaleString('en')} open trackers in one account; ${conditions()}`)
const stores = await benchStores()
const { readStore } = stores.runtime
const now = Math.floor(Date.parse('2026-11-30T12:00:00Z') / 1000)
const t0 = performance.now()
for (let start = 0; start < TRACKERS; start += 10_000) {
  const writes = Array.from({ length: Math.min(10_000, TRACKERS - start) }, (_, j) => {
    const id = start + j + 1
    // Each open tracker is due some time in the next month; one in a hundred is due within the next minute.
    const due = id % 100 === 0 ? now + (id % 60) : now + 60 + ((id * 7919) % (30 * DAY_SECONDS))
    const doc: TrackerIndexDoc = {
      id,
      tracking_number: `TN${id}`,
      delivery_status_code: 'in_transit',
      created_at: now - 3 * DAY_SECONDS,
      delay_status: null,
      delay_check_at: due,
    }
    return {
      collection: collections.trackers.name,
      key: `order-1_O${id}#${id}`,
      accountId: 1,
      id,
      revision: 3,
      doc,
      fields: {
        tracking_number: doc.tracking_number,
        delivery_status_code: doc.delivery_status_code,
        delay_check_at: due,
      },
    }
  })
  await readStore.commit(['bench-load'], writes, BigInt(start + 1))
}
console.log(`  loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`)

const lookups: number[] = []
let found = 0
for (let i = 0; i < 21; i++) {
  const t = performance.now()
  found = (await readStore.lookupDue(collections.trackers.name, 'delay_check_at', now + 60, 50_000)).length
  lookups.push(performance.now() - t)
}
const t1 = performance.now()
let read = 0
for (let endingBefore: number | undefined; ; ) {
  const page = await readStore.find(collections.trackers.name, { accountId: 1, endingBefore, limit: 10_000 })
  read += page.docs.filter((d) => ((d.doc as TrackerIndexDoc).delay_check_at ?? Infinity) <= now + 60).length
  if (!page.hasMore) break
  endingBefore = page.docs.at(-1)!.id
}
const scan = performance.now() - t1
console.log(
  `  the ${found.toLocaleString('en')} trackers due within a minute, through the index: median ${ms(percentile(lookups, 50))} (target < 1 s); reading every tracker instead: ${ms(scan)} (found ${read.toLocaleString('en')})`,
)
await stores.close()

const lanes = SYNTHETIC_LANES
const t2 = performance.now()
const stories = generateDelayStories(lanes, '2026-01-01', '2026-12-31', PER_DAY)
const t3 = performance.now()
const { rows, total } = delayBacktest(stories, { since: SINCE, rules: DEFAULT_DELAY_RULES, sample: 5000 })
console.log(
  `delays backtest: ${stories.length.toLocaleString('en')} synthetic parcels of 2026 (${PER_DAY} a working day, 5 lanes), scored after ${SINCE}; generated in ${((t3 - t2) / 1000).toFixed(1)} s, replayed in ${((performance.now() - t3) / 1000).toFixed(1)} s`,
)
/** Of the late parcels scored, those whose own scans first betrayed them at least a day before their promise passed. */
const firstSign = (carriers?: readonly string[]) => {
  const late = stories.filter((s) => {
    const end = startOfDay(s.days, addDays(s.promise, 1))
    return s.delivered_at >= end && s.promise >= SINCE && (!carriers || carriers.includes(s.carrier_code))
  })
  const early = late.filter(
    (s) => s.first_sign !== null && startOfDay(s.days, addDays(s.promise, 1)) - s.first_sign >= DAY_SECONDS,
  )
  return late.length ? early.length / late.length : 0
}
const pct = (n: number) => `${(n * 100).toFixed(1)} %`.padStart(8)
const line = (name: string, s: DelayScore, possible: number) =>
  `${name.padEnd(22)}${String(s.parcels).padStart(8)}${String(s.late).padStart(7)}${pct(s.late ? s.flagged_a_day_early / s.late : 0)}${pct(possible)}${pct(s.late ? s.flagged_before / s.late : 0)}${(s.median_lead_hours === null ? '–' : `${s.median_lead_hours.toFixed(0)} h`).padStart(8)}${pct(s.flagged ? s.false_flags / s.flagged : 0)}`
console.log(
  `${'carrier service'.padEnd(22)}${'parcels'.padStart(8)}${'late'.padStart(7)}${'≥24 h'.padStart(8)}${'sign'.padStart(8)}${'before'.padStart(8)}${'lead'.padStart(8)}${'false'.padStart(8)}`,
)
for (const r of rows) console.log(line(`${r.carrier_code}/${r.service_code}`, r, firstSign([r.carrier_code])))
// A parcel promised for the next working day has no morning between its shipping and that day: none can be flagged a day ahead.
const longer = lanes.filter((l) => modeOf(l.shape) > 1).map((l) => l.carrier)
const longerRows = rows.filter((r) => longer.includes(r.carrier_code))
const longerTotal: DelayScore = {
  parcels: 0,
  late: 0,
  flagged_a_day_early: 0,
  flagged_before: 0,
  median_lead_hours: null,
  flagged: 0,
  false_flags: 0,
}
for (const r of longerRows)
  for (const field of ['parcels', 'late', 'flagged_a_day_early', 'flagged_before', 'flagged', 'false_flags'] as const)
    longerTotal[field] += r[field]
console.log(line('promised ≥ 2 days', longerTotal, firstSign(longer)))
console.log(line('all', total, firstSign()))
const share = (n: number, of: number) => pct(of ? n / of : 0).trim()
console.log(
  `late parcels flagged ≥ 24 h before their promise passed: ${share(total.flagged_a_day_early, total.late)} of all, ${share(longerTotal.flagged_a_day_early, longerTotal.late)} of those promised two days or more (target ≥ 70 %); flags false: ${share(total.false_flags, total.flagged)} (target ≤ 20 %)`,
)
