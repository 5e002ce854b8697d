import { type BacktestRow, backtest, type DeliveredParcel, type Score } from '../shared/domain/delivery/backtest.ts'
import { contributionOf } from '../shared/domain/delivery/sums.ts'
import { changesDeliveryFacts, evolveDeliveryFacts, type OrderDeliveryFacts } from '../shared/domain/delivery/facts.ts'
import { orderEventTypes } from '../shared/domain/events/index.ts'
import type { OrderEvent } from '../shared/domain/events/index.ts'
import { asDomainEvents } from '../shared/infra/event-store/recorded.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { configuredServices } from '../projectors/carrier-services/configured.ts'

const PAGE = 5000
const folded = orderEventTypes.filter(changesDeliveryFacts)

/** One order's delivery facts as the log folds them, with its account. */
export interface FoldedOrder {
  accountId: number
  facts: OrderDeliveryFacts
}

/**
 * Every order's delivery facts, folded from the order streams of the log
 * (one account's, or all); `also` sees each event folded, for a caller that
 * keeps more of them.
 */
export async function foldedOrders(
  rt: Pick<Runtime, 'eventStore'>,
  account?: number,
  also?: (stream: string, event: OrderEvent) => void,
) {
  const orders = new Map<string, FoldedOrder>()
  for (let after: bigint | undefined; ; ) {
    const page = await rt.eventStore.readAll({ after, limit: PAGE, types: folded })
    if (page.length === 0) break
    after = page.at(-1)!.position
    for (const recorded of page) {
      if (!recorded.stream.startsWith('order-')) continue
      if (account !== undefined && recorded.metadata.accountId !== account) continue
      const event = asDomainEvents<OrderEvent>([recorded])[0]!
      const current = orders.get(recorded.stream)
      orders.set(recorded.stream, {
        accountId: recorded.metadata.accountId,
        facts: evolveDeliveryFacts(current?.facts, event),
      })
      also?.(recorded.stream, event)
    }
  }
  return orders
}

/** Every delivered parcel of the log, per account: the history, folded from the order streams themselves. */
export async function deliveredParcels(rt: Pick<Runtime, 'eventStore'>, account?: number) {
  const byAccount = new Map<number, DeliveredParcel[]>()
  for (const { accountId, facts } of (await foldedOrders(rt, account)).values())
    for (const p of facts.parcels) {
      const lane = contributionOf(facts, p)
      if (!lane?.delivered || p.shipped_at === null || p.delivered_at === null) continue
      byAccount.set(accountId, [
        ...(byAccount.get(accountId) ?? []),
        { lane, shipped_at: p.shipped_at, delivered_at: p.delivered_at },
      ])
    }
  return byAccount
}

const percent = (n: number) => `${(n * 100).toFixed(1)} %`
const scoreLine = (s: Score | null) =>
  s
    ? `${String(s.count).padStart(7)} ${percent(s.exact).padStart(8)} ${percent(s.within_one).padStart(8)} ${percent(s.by_safe_date).padStart(8)} ${s.mean_absolute_error.toFixed(2).padStart(6)}`
    : '  (no configured transit days)'

/** The backtest's table: per account and carrier service, the learned estimate beside the configured one. */
export function backtestTable(accountId: number, rows: readonly BacktestRow[]): string {
  const header = `${'carrier service'.padEnd(24)} ${'basis'.padEnd(10)} ${'parcels'.padStart(7)} ${'exact'.padStart(8)} ${'±1 day'.padStart(8)} ${'by safe'.padStart(8)} ${'MAE'.padStart(6)}`
  const lines = rows.flatMap((r) => {
    const name = `${r.carrier_code}/${r.service_code}`.padEnd(24)
    return [
      `${name} ${'history'.padEnd(10)} ${scoreLine(r.learned)}`,
      `${' '.repeat(24)} ${'configured'.padEnd(10)} ${scoreLine(r.configured)}`,
    ]
  })
  return [`account ${accountId}`, header, ...lines].join('\n')
}

/** `shiplog estimation backtest`: the table of each account (or the one asked) over the parcels delivered since. */
export async function runBacktest(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>,
  options: { since: string; account?: number },
  out: NodeJS.WritableStream,
) {
  const parcels = await deliveredParcels(rt, options.account)
  if (parcels.size === 0) out.write('no delivered parcel in the log\n')
  for (const [accountId, delivered] of [...parcels].sort(([a], [b]) => a - b)) {
    const services = await configuredServices(rt, accountId)
    const rows = backtest(delivered, {
      since: options.since,
      windowDays: rt.config.SHIPLOG_ESTIMATION_WINDOW_DAYS,
      services,
    })
    out.write(`${backtestTable(accountId, rows)}\n\n`)
  }
}
