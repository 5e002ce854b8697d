import {
  type DelayBacktestRow,
  type DelayScore,
  delayBacktest,
  type ParcelStory,
} from '../shared/domain/delivery/delay-backtest.ts'
import { laneKey } from '../shared/domain/delivery/delay-model.ts'
import { DEFAULT_DELAY_RULES, parcelDaysTo } from '../shared/domain/delivery/delays.ts'
import { destinationOf } from '../shared/domain/delivery/facts.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { AccountDoc } from '../projectors/accounts/account.ts'
import { configuredServices } from '../projectors/carrier-services/configured.ts'
import { calendarIn, DELAY_MODEL_SAMPLE } from '../projectors/deliveries/delay-lessons.ts'
import { foldedOrders } from './estimation.ts'

/** Each delivered parcel of the log that had a promise when it shipped, with its scans, per account. */
async function parcelStories(rt: Pick<Runtime, 'eventStore' | 'readStore'>, account?: number) {
  const scans = new Map<string, number[]>()
  const created = new Map<string, number>()
  const orders = await foldedOrders(rt, account, (stream, event) => {
    if (event.type === 'TrackerCreated') created.set(`${stream}#${event.data.tracker_id}`, event.data.at)
    if (event.type !== 'TrackingEventRecorded') return
    const key = `${stream}#${event.data.tracker_id}`
    const seen = scans.get(key) ?? []
    seen.push(event.data.event.happened_at)
    scans.set(key, seen)
  })
  const byAccount = new Map<number, ParcelStory[]>()
  const calendars = new Map<number, ReturnType<typeof calendarIn>>()
  for (const [stream, { accountId, facts }] of orders) {
    if (!calendars.has(accountId)) calendars.set(accountId, calendarIn(await configuredServices(rt, accountId)))
    const calendar = calendars.get(accountId)!
    for (const p of facts.parcels) {
      if (!p.carrier_code || !p.promised_date || p.shipped_at === null || p.delivered_at === null) continue
      const destination = destinationOf(facts, p.fulfillment_id)
      const key = `${stream}#${p.tracker_id}`
      const story: ParcelStory = {
        lane: laneKey(p.carrier_code, p.service_code, destination?.country ?? null),
        carrier_code: p.carrier_code,
        service_code: p.service_code ?? '',
        created_at: created.get(key) ?? p.shipped_at,
        shipped_at: p.shipped_at,
        delivered_at: p.delivered_at,
        promise: p.promised_date,
        scans: (scans.get(key) ?? []).sort((a, b) => a - b),
        days: parcelDaysTo(
          { country: destination?.country ?? null, state: destination?.state ?? null },
          calendar(p.carrier_code, p.service_code),
        ),
      }
      const stories = byAccount.get(accountId) ?? []
      stories.push(story)
      byAccount.set(accountId, stories)
    }
  }
  return byAccount
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
