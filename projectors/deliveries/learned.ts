import { addDays, localDateTime } from '../../shared/domain/delivery/calendar.ts'
import type { ConfiguredService } from '../../shared/domain/delivery/estimate.ts'
import {
  type Histories,
  RECENT_DAYS,
  transitHistoryOf,
  WORKING_WEEK,
  weekOf,
} from '../../shared/domain/delivery/history.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type BucketDoc, dayNumber, type PrefixesDoc } from './delivery-stats.ts'

const COLLECTION = collections.delivery_stats.name
const PAGE = 5000

/** An account's documents of one kind for the weeks from `from`'s to `to`'s (YYYY-MM-DD), every page. */
async function weeksBetween<D>(
  store: ReadStore,
  accountId: number,
  kind: 'bucket' | 'prefixes',
  from: string,
  to: string,
) {
  const docs: D[] = []
  const where = [
    { field: 'kind', op: 'eq' as const, value: kind },
    { field: 'week', op: 'gte' as const, value: dayNumber(weekOf(from)) },
    { field: 'week', op: 'lte' as const, value: dayNumber(weekOf(to)) },
  ]
  for (let endingBefore: number | undefined; ; ) {
    const page = await store.find<D>(COLLECTION, { accountId, where, endingBefore, limit: PAGE })
    for (const d of page.docs) docs.push(d.doc)
    if (!page.hasMore) return docs
    endingBefore = page.docs.at(-1)!.id
  }
}

/** The weeks' sums around the days from `from` to `to`: their first and last weeks may hold days outside. */
export const bucketsBetween = async (store: ReadStore, accountId: number, from: string, to: string) =>
  (await weeksBetween<BucketDoc>(store, accountId, 'bucket', from, to)).map((d) => d.bucket)

const prefixesBetween = async (store: ReadStore, accountId: number, from: string, to: string) =>
  (await weeksBetween<PrefixesDoc>(store, accountId, 'prefixes', from, to)).map((d) => d.prefixes)

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
    bucketsBetween(rt.readStore, accountId, from, today),
    prefixesBetween(rt.readStore, accountId, from, today),
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
