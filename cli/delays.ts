import { type DelayBacktestRow, type DelayScore, delayBacktest } from '../shared/domain/delivery/delay-backtest.ts'
import { DEFAULT_DELAY_RULES } from '../shared/domain/delivery/delays.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { AccountDoc } from '../projectors/accounts/account.ts'
import { DELAY_MODEL_SAMPLE } from '../projectors/deliveries/delay-lessons.ts'
import { parcelStoryFolder } from '../projectors/deliveries/parcel-stories.ts'
import { foldedOrders } from './estimation.ts'

/** Each delivered parcel of the log that had a promise when it shipped, with its scans, per account. */
async function parcelStories(rt: Pick<Runtime, 'eventStore' | 'readStore'>, account?: number) {
  const stories = parcelStoryFolder()
  const orders = await foldedOrders(rt, account, stories.see)
  return stories.tell(rt, orders)
}

const percent = (n: number, of: number) => (of ? `${((n / of) * 100).toFixed(1)} %` : '–').padStart(8)
const scoreLine = (name: string, s: DelayScore) =>
  `${name.padEnd(24)} ${String(s.parcels).padStart(7)} ${String(s.late).padStart(6)} ${percent(s.flagged_a_day_early, s.late)} ${percent(s.flagged_before, s.late)} ${(s.median_lead_hours === null ? '–' : `${s.median_lead_hours.toFixed(0)} h`).padStart(7)} ${percent(s.false_flags, s.flagged)}`

/** The backtest's table: per account and carrier service, and all together. */
export function delayBacktestTable(accountId: number, rows: readonly DelayBacktestRow[], total: DelayScore): string {
  const header = `${'carrier service'.padEnd(24)} ${'parcels'.padStart(7)} ${'late'.padStart(6)} ${'≥ 24 h'.padStart(8)} ${'before'.padStart(8)} ${'lead'.padStart(7)} ${'false'.padStart(8)}`
  const lines = rows.map((r) => scoreLine(`${r.carrier_code}/${r.service_code}`, r))
  return [`account ${accountId}`, header, ...lines, scoreLine('all', total)].join('\n')
}

/**
 * `shiplog delays backtest`: per account (or the one asked) and carrier
 * service, of the parcels delivered since the date that had a promise: those
 * late, the share of them flagged at least a day and at all before their
 * promise passed, the median lead, and the share of flags that were false.
 */
export async function runDelayBacktest(
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  options: { since: string; account?: number },
  out: NodeJS.WritableStream,
) {
  const stories = await parcelStories(rt, options.account)
  if (stories.size === 0) out.write('no delivered parcel with a promise in the log\n')
  for (const [accountId, parcels] of [...stories].sort(([a], [b]) => a - b)) {
    const account = await rt.readStore.get<AccountDoc>(collections.accounts.name, accountId, accountId)
    const rules = account?.doc.delay_rules ?? DEFAULT_DELAY_RULES
    const { rows, total } = delayBacktest(parcels, { since: options.since, rules, sample: DELAY_MODEL_SAMPLE })
    out.write(`${delayBacktestTable(accountId, rows, total)}\n\n`)
  }
}
