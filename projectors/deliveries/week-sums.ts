import { addDays, type CalendarDate } from '../../shared/domain/delivery/calendar.ts'
import { weekOf } from '../../shared/domain/delivery/sums.ts'
import type { Position } from '../../shared/infra/event-store/port.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Condition, ReadStore } from '../../shared/infra/read-store/port.ts'
import { type BucketDoc, dayNumber, type PrefixesDoc } from './delivery-stats.ts'

/*
 * The weeks' sums of the delivery history, read for analytics and learned
 * estimates. A year of a busy account is ten thousand documents, too many to
 * read and parse at each request, so each process keeps the recent weeks of
 * the accounts it answers for and, at each request, reads again only the
 * documents the projection changed since (each carries the log position it
 * was last changed at). Older weeks are read from the store each time.
 */

const COLLECTION = collections.delivery_stats.name
const PAGE = 5000
/** How far back the kept weeks reach, per kind: analytics' longest period; the estimates' longest window. */
const KEPT_DAYS = { bucket: 731, prefixes: 366 } as const
/** The documents kept in a process, all accounts together; the accounts least recently asked for go first. */
const MAX_KEPT = 200_000
/** Kept weeks are read afresh this often, so a rebuild run by another process is seen. */
const RELOAD_MS = 15 * 60_000

type Kind = 'bucket' | 'prefixes'
type DocOf<K extends Kind> = K extends 'bucket' ? BucketDoc : PrefixesDoc
interface Kept {
  /** Monday of the first week kept. */
  since: CalendarDate
  /** The projection's checkpoint when last read: every change up to it is in `docs`. */
  through: Position | undefined
  loadedAt: number
  docs: Map<number, BucketDoc | PrefixesDoc>
}
const keptByStore = new WeakMap<ReadStore, Map<string, Kept>>()

async function read<D>(store: ReadStore, accountId: number, where: Condition[]) {
  const docs: { id: number; doc: D }[] = []
  for (let endingBefore: number | undefined; ; ) {
    const page = await store.find<D>(COLLECTION, { accountId, where, endingBefore, limit: PAGE })
    for (const d of page.docs) docs.push(d)
    if (!page.hasMore) return docs
    endingBefore = page.docs.at(-1)!.id
  }
}

const weeksFrom = (kind: Kind, from: CalendarDate, to?: CalendarDate): Condition[] => [
  { field: 'kind', op: 'eq', value: kind },
  { field: 'week', op: 'gte', value: dayNumber(weekOf(from)) },
  ...(to === undefined ? [] : [{ field: 'week', op: 'lte' as const, value: dayNumber(weekOf(to)) }]),
]

/** The kept weeks of an account, brought up to the projection's checkpoint. */
async function keptWeeks(store: ReadStore, accountId: number, kind: Kind, today: CalendarDate, nowMs: number) {
  const kept = keptByStore.get(store) ?? new Map<string, Kept>()
  keptByStore.set(store, kept)
  const key = `${accountId}|${kind}`
  const since = weekOf(addDays(today, -KEPT_DAYS[kind]))
  let entry = kept.get(key)
  kept.delete(key)
  if (!entry || entry.since !== since || nowMs - entry.loadedAt > RELOAD_MS)
    entry = { since, through: undefined, loadedAt: nowMs, docs: new Map() }
  kept.set(key, entry)
  // Read before the documents: whatever the projection committed up to it is then among what is read.
  const checkpoint = await store.checkpoint('delivery_stats')
  if (entry.through === undefined || checkpoint !== entry.through) {
    const changed: Condition[] =
      entry.through === undefined ? [] : [{ field: 'changed', op: 'gt', value: Number(entry.through) }]
    for (const { id, doc } of await read<BucketDoc | PrefixesDoc>(store, accountId, [
      ...weeksFrom(kind, since),
      ...changed,
    ]))
      entry.docs.set(id, doc)
    entry.through = checkpoint
  }
  let total = 0
  for (const e of kept.values()) total += e.docs.size
  for (const [k, e] of kept) {
    if (total <= MAX_KEPT || k === key) break
    kept.delete(k)
    total -= e.docs.size
  }
  return entry
}

/** An account's documents of one kind for the weeks from `from`'s to `to`'s (YYYY-MM-DD). */
export async function weekSumsBetween<K extends Kind>(
  store: ReadStore,
  accountId: number,
  kind: K,
  range: { from: CalendarDate; to: CalendarDate; today: CalendarDate; nowMs: number },
): Promise<DocOf<K>[]> {
  const [first, last] = [weekOf(range.from), weekOf(range.to)]
  if (addDays(range.today, -KEPT_DAYS[kind]) > range.from)
    return (await read<DocOf<K>>(store, accountId, weeksFrom(kind, range.from, range.to))).map((d) => d.doc)
  const { docs } = await keptWeeks(store, accountId, kind, range.today, range.nowMs)
  const within: DocOf<K>[] = []
  for (const doc of docs.values()) {
    const week = doc.kind === 'bucket' ? doc.bucket.week : doc.prefixes.week
    if (week >= first && week <= last) within.push(doc as DocOf<K>)
  }
  return within
}
