import { addDays, localDateTime } from '../../shared/domain/delivery/calendar.ts'
import type { ConfiguredService } from '../../shared/domain/delivery/estimate.ts'
import {
  type DeliveryBucket,
  type Histories,
  RECENT_DAYS,
  transitHistoryOf,
  WORKING_WEEK,
} from '../../shared/domain/delivery/history.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type BucketDoc, dayNumber } from './delivery-stats.ts'

const COLLECTION = collections.delivery_stats.name
const PAGE = 1000

/** An account's buckets of the days from `from` to `to` (YYYY-MM-DD, both included), every page. */
export async function bucketsBetween(
  store: ReadStore,
  accountId: number,
  from: string,
  to: string,
): Promise<DeliveryBucket[]> {
  const buckets: DeliveryBucket[] = []
  const where = [
    { field: 'ended_on', op: 'gte' as const, value: dayNumber(from) },
    { field: 'ended_on', op: 'lte' as const, value: dayNumber(to) },
  ]
  for (let endingBefore: number | undefined; ; ) {
    const page = await store.find<BucketDoc>(COLLECTION, { accountId, where, endingBefore, limit: PAGE })
    for (const d of page.docs) buckets.push(d.doc.bucket)
    if (!page.hasMore) return buckets
    endingBefore = page.docs.at(-1)!.id
  }
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
  const history = bucketsBetween(
    rt.readStore,
    accountId,
    addDays(today, -rt.config.SHIPLOG_ESTIMATION_WINDOW_DAYS),
    today,
  ).then((buckets) =>
    transitHistoryOf(
      buckets,
      (carrier, service) =>
        services.find((s) => s.carrier_code === carrier && s.service_code === service) ?? WORKING_WEEK,
      addDays(today, -RECENT_DAYS),
    ),
  )
  histories.set(key, { at: now, checkpoint, history })
  history.catch(() => histories.delete(key))
  if (histories.size > 10_000) histories.delete(histories.keys().next().value!)
  return history
}
