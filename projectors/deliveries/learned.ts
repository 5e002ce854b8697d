import { addDays, type CalendarDate, localDateTime } from '../../shared/domain/delivery/calendar.ts'
import type { ConfiguredService } from '../../shared/domain/delivery/estimate.ts'
import { type Histories, RECENT_DAYS, transitHistoryOf } from '../../shared/domain/delivery/history.ts'
import { WORKING_WEEK } from '../../shared/domain/delivery/business-days.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { weekSumsBetween } from './week-sums.ts'

/** The account's weeks' sums from `from` to `to` (their first and last weeks may hold days outside). */
export const bucketsBetween = async (
  rt: Pick<Runtime, 'readStore' | 'clock'>,
  accountId: number,
  from: CalendarDate,
  to: CalendarDate,
) => (await weekSumsBetween(rt.readStore, accountId, 'bucket', rangeOf(rt, from, to))).map((d) => d.bucket)

const prefixesBetween = async (
  rt: Pick<Runtime, 'readStore' | 'clock'>,
  accountId: number,
  from: CalendarDate,
  to: CalendarDate,
) => (await weekSumsBetween(rt.readStore, accountId, 'prefixes', rangeOf(rt, from, to))).map((d) => d.prefixes)

const rangeOf = (rt: Pick<Runtime, 'clock'>, from: CalendarDate, to: CalendarDate) => {
  const nowMs = rt.clock.nowMs()
  return { from, to, nowMs, today: localDateTime('UTC', new Date(nowMs)).date }
}

/**
 * How long a learned history is kept: until the delivery history moves on,
 * and at most a minute; while parcels keep arriving, once a second at most.
 */
const HISTORY_TTL_MS = 60_000
const FRESH_MS = 1000
type Cached = { at: number; checkpoint: bigint | undefined; history: Promise<Histories> }
/** Per read store (a process may hold several: the tests' servers), per account and services. */
const cachesByStore = new WeakMap<ReadStore, Map<string, Cached>>()

/**
 * What an account's delivered parcels of the last SHIPLOG_ESTIMATION_WINDOW_DAYS
 * say of each lane, transit counted with each configured service's delivery
 * days (a working week for a service not configured). Kept a minute per
 * account and process, so an estimation reads it at no cost.
 */
export async function learnedHistory(
  rt: Pick<Runtime, 'readStore' | 'config' | 'clock'>,
  accountId: number,
  services: readonly ConfiguredService[],
): Promise<Histories> {
  const key = `${accountId}|${services.map((s) => `${s.carrier_code}:${s.service_code}:${s.delivery_days.join(',')}`).join(';')}`
  const now = rt.clock.nowMs()
  const checkpoint = await rt.readStore.checkpoint('delivery_stats')
  const histories = cachesByStore.get(rt.readStore) ?? new Map<string, Cached>()
  cachesByStore.set(rt.readStore, histories)
  const known = histories.get(key)
  const age = known ? now - known.at : Number.POSITIVE_INFINITY
  if (known && (age < FRESH_MS || (age < HISTORY_TTL_MS && known.checkpoint === checkpoint))) return known.history
  const today = localDateTime('UTC', new Date(now)).date
  const from = addDays(today, -rt.config.SHIPLOG_ESTIMATION_WINDOW_DAYS)
  const history = Promise.all([
    bucketsBetween(rt, accountId, from, today),
    prefixesBetween(rt, accountId, from, today),
  ]).then(([buckets, prefixes]) =>
    transitHistoryOf(
      buckets,
      prefixes,
      (carrier, service) =>
        services.find((s) => s.carrier_code === carrier && s.service_code === service) ?? WORKING_WEEK,
      { from, recentFrom: addDays(today, -RECENT_DAYS) },
    ),
  )
  histories.set(key, { at: now, checkpoint, history })
  history.catch(() => histories.delete(key))
  if (histories.size > 10_000) histories.delete(histories.keys().next().value!)
  return history
}
