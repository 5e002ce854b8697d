import { createHash } from 'node:crypto'
import {
  applyContribution,
  applyPrefixContribution,
  bucketKeyOf,
  type Contribution,
  contributionOf,
  type DeliveryBucket,
  emptyBucket,
  emptyPrefixBucket,
  type PrefixBucket,
  weekOf,
} from '../../shared/domain/delivery/sums.ts'
import {
  mayChangeDeliveryFacts,
  evolveDeliveryFacts,
  type OrderDeliveryFacts,
  type Place,
} from '../../shared/domain/delivery/facts.ts'
import { sameValue } from '../../shared/domain/same-value.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { DocumentWrite, ReadStore, StoredDocument } from '../../shared/infra/read-store/port.ts'
import type { Projection } from '../document-projection.ts'

/*
 * The delivery history read model, in one collection: per order, the facts
 * of its parcels and what each one that ended adds to the sums (`order:`
 * documents, at their stream's revision, so an event is folded once); per
 * account, carrier service, lane and week parcels ended, the sums (`bucket:`
 * documents) and the same per destination postcode prefix (`prefixes:`). A correction (a later delivery scan, a carrier set right) takes
 * the parcel's old contribution back and adds the new one. The sums span
 * streams, so this projection is never split across a rebuild's threads: the
 * first part folds everything, the others nothing.
 */

export interface OrderFactsDoc {
  kind: 'order'
  id: number
  facts: OrderDeliveryFacts
  /** What each parcel that ended adds to its bucket, as (tracker id, contribution) pairs. */
  contributions: readonly ParcelContribution[]
}

type ParcelContribution = readonly [tracker_id: number, contribution: Contribution]

export interface BucketDoc {
  kind: 'bucket'
  id: number
  bucket: DeliveryBucket
}

export interface PrefixesDoc {
  kind: 'prefixes'
  id: number
  prefixes: PrefixBucket
}

export type DeliveryStatsDoc = OrderFactsDoc | BucketDoc | PrefixesDoc

const COLLECTION = collections.delivery_stats.name

/** A bucket's document id: negative, so it never meets an order's id in the same collection. */
export const bucketIdOf = (key: string) => -createHash('sha256').update(key).digest().readUIntBE(0, 6)

/** `YYYY-MM-DD` as the integer YYYYMMDD the collection is indexed by. */
export const dayNumber = (date: string) => Number(date.replaceAll('-', ''))

export const orderFactsKey = (stream: string) => `order:${stream}`
export const bucketKey = (accountId: number, c: Parameters<typeof bucketKeyOf>[0]) =>
  `bucket:${accountId}|${bucketKeyOf(c)}`
export const prefixesKey = (accountId: number, c: Parameters<typeof bucketKeyOf>[0]) =>
  `prefixes:${accountId}|${bucketKeyOf(c)}`

/**
 * An order's facts are read by key, never listed: none of its indexed fields
 * is set, so its writes add no entry to the indexes the week sums are listed by.
 */
const ORDER_FIELDS = { kind: null, week: null, changed: null }

/** An order's event that may change its facts (its data is read only for the types that need it). */
const isFolded = (e: RecordedEvent) =>
  e.stream.startsWith('order-') && mayChangeDeliveryFacts(asDomainEvents<OrderEvent>([e])[0]!)

/**
 * A new order's facts, folded from its creation, if none of its parcels
 * ended on the way. Only then may it go without a lookup: a rebuild's
 * catch-up replays events that its shadow may hold already, and the
 * contributions those stored facts added to the weeks' sums must be found to
 * be taken back or kept. Facts that never ended a parcel, at any of their
 * revisions, added none.
 */
function factsNeverEnded(events: readonly RecordedEvent[]) {
  let facts: OrderDeliveryFacts | undefined
  for (const e of events) {
    const folded = evolveDeliveryFacts(facts, asDomainEvents<OrderEvent>([e])[0]!)
    if (folded.parcels.some((p) => contributionOf(folded, p) !== undefined)) return undefined
    facts = folded
  }
  return facts
}

/** Pairs by id, or, in a document written before pairs, an object keyed by the ids. */
type StoredPairs<T> = readonly (readonly [number, T])[] | Readonly<Record<string, T>>

/** An order's facts document as any version of this projection stored it. */
type StoredFactsDoc = Omit<OrderFactsDoc, 'facts' | 'contributions'> & {
  facts: Omit<OrderDeliveryFacts, 'fulfillment_destinations'> & { fulfillment_destinations: StoredPairs<Place> }
  contributions: StoredPairs<Contribution>
}

const asPairs = <T>(stored: StoredPairs<T>): readonly (readonly [number, T])[] =>
  isPairs(stored) ? stored : Object.entries(stored).map(([id, value]) => [Number(id), value] as const)
const isPairs = <T>(stored: StoredPairs<T>): stored is readonly (readonly [number, T])[] => Array.isArray(stored)

/** A stored document read as pairs: one written before them is rewritten as pairs at its next change. */
function factsDocOf(stored: StoredFactsDoc): OrderFactsDoc {
  const { facts, contributions } = stored
  if (isPairs(contributions) && isPairs(facts.fulfillment_destinations)) return stored as OrderFactsDoc
  return {
    ...stored,
    facts: { ...facts, fulfillment_destinations: asPairs(facts.fulfillment_destinations) },
    contributions: asPairs(contributions),
  }
}

/** An order's facts after its events newer than `revision`, with the revision of the last. */
function foldFacts(facts: OrderDeliveryFacts | undefined, revision: number, events: readonly RecordedEvent[]) {
  for (const e of events) {
    if (e.revision <= revision) continue
    facts = evolveDeliveryFacts(facts, asDomainEvents<OrderEvent>([e])[0]!)
    revision = e.revision
  }
  return { facts, revision }
}

export function deliveryStatsProjection(
  name = 'delivery_stats',
  collection: string = COLLECTION,
  part = 0,
): Projection {
  return {
    name,
    collection,
    retarget: (n, c) => deliveryStatsProjection(n, c, part),
    part: (index) => deliveryStatsProjection(name, collection, index),
    async apply(events, store) {
      if (part !== 0) return []
      const byStream = new Map<string, RecordedEvent[]>()
      for (const e of events) {
        if (!isFolded(e)) continue
        const list = byStream.get(e.stream)
        if (list) list.push(e)
        else byStream.set(e.stream, [e])
      }
      if (byStream.size === 0) return []
      // An order the batch creates is not looked up: a bulk load creates most of what it writes.
      const created = new Map<string, OrderDeliveryFacts>()
      const lookedUp: string[] = []
      for (const [stream, streamEvents] of byStream) {
        const facts = streamEvents[0]!.revision === 0 ? factsNeverEnded(streamEvents) : undefined
        if (facts) created.set(stream, facts)
        else lookedUp.push(stream)
      }
      const stored = await store.getManyByKey<StoredFactsDoc>(collection, lookedUp.map(orderFactsKey))
      const writes: DocumentWrite[] = []
      const deltas = new Map<string, { accountId: number; changes: [Contribution, 1 | -1][] }>()
      const delta = (accountId: number, c: Contribution, sign: 1 | -1) => {
        const prefixed = c.prefix !== null && c.shipped_on !== null
        for (const key of [bucketKey(accountId, c), ...(prefixed ? [prefixesKey(accountId, c)] : [])]) {
          const entry = deltas.get(key) ?? { accountId, changes: [] }
          entry.changes.push([c, sign])
          deltas.set(key, entry)
        }
      }
      for (const [stream, streamEvents] of byStream) {
        const found = stored.get(orderFactsKey(stream))
        const current: StoredDocument<OrderFactsDoc> | undefined = found && { ...found, doc: factsDocOf(found.doc) }
        const accountId = streamEvents[0]!.metadata.accountId
        const createdFacts = created.get(stream)
        const { facts, revision } = createdFacts
          ? { facts: createdFacts, revision: streamEvents.at(-1)!.revision }
          : foldFacts(current?.doc.facts, current?.revision ?? -1, streamEvents)
        if (!facts || revision === (current?.revision ?? -1)) continue
        // Most scans change no fact (a parcel's origin is its first scan's country): the document
        // stays as it is, and a replay of those events folds them again to the same facts.
        if (current && sameValue(current.doc.facts, facts)) continue
        const contributions: ParcelContribution[] = []
        for (const parcel of facts.parcels) {
          const c = contributionOf(facts, parcel)
          if (c) contributions.push([parcel.tracker_id, c])
        }
        const before = new Map(current?.doc.contributions)
        const after = new Map(contributions)
        for (const id of new Set([...before.keys(), ...after.keys()])) {
          const [was, now] = [before.get(id), after.get(id)]
          if (was && now && sameValue(was, now)) continue
          if (was) delta(accountId, was, -1)
          if (now) delta(accountId, now, 1)
        }
        const doc: OrderFactsDoc = { kind: 'order', id: facts.order_id, facts, contributions }
        writes.push({
          collection,
          key: orderFactsKey(stream),
          accountId,
          id: doc.id,
          revision,
          doc,
          fields: ORDER_FIELDS,
          // An order's indexed fields never change: only its document is rewritten.
          replaces: current && current.id === doc.id ? { revision: current.revision, changedFields: [] } : undefined,
          absent: current === undefined,
        })
      }
      writes.push(...(await bucketWrites(store, collection, deltas, Number(events.at(-1)!.position))))
      return writes
    },
  }
}

/** The weeks' sums the batch changes, each with its contributions added and taken back. */
async function bucketWrites(
  store: ReadStore,
  collection: string,
  deltas: Map<string, { accountId: number; changes: [Contribution, 1 | -1][] }>,
  /** The batch's last log position: readers that keep the weeks read again only those changed after theirs. */
  changed: number,
): Promise<DocumentWrite[]> {
  if (deltas.size === 0) return []
  const stored = await store.getManyByKey<BucketDoc | PrefixesDoc>(collection, [...deltas.keys()])
  return [...deltas].map(([key, { accountId, changes }]) => {
    const current = stored.get(key)
    const id = bucketIdOf(key)
    const first = changes[0]![0]
    let doc: BucketDoc | PrefixesDoc
    if (key.startsWith('prefixes:')) {
      const prefixes =
        current?.doc.kind === 'prefixes' ? structuredClone(current.doc.prefixes) : emptyPrefixBucket(first)
      for (const [c, sign] of changes) applyPrefixContribution(prefixes, c, sign)
      doc = { kind: 'prefixes', id, prefixes }
    } else {
      const bucket = current?.doc.kind === 'bucket' ? structuredClone(current.doc.bucket) : emptyBucket(first)
      for (const [c, sign] of changes) applyContribution(bucket, c, sign)
      doc = { kind: 'bucket', id, bucket }
    }
    return {
      collection,
      key,
      accountId,
      id,
      // A week spans streams: its revision counts its changes (the orders' documents keep each event to once).
      revision: (current?.revision ?? -1) + 1,
      doc,
      fields: { kind: doc.kind, week: dayNumber(weekOf(first.ended_on)), changed },
      absent: current === undefined,
    }
  })
}

/** The documents of the weeks' sums of these contributions, made from nothing: a bulk load (the benchmarks). */
export function weekSumsOf(
  accountId: number,
  contributions: Iterable<Contribution>,
  collection = COLLECTION,
): DocumentWrite[] {
  const docs = new Map<string, BucketDoc | PrefixesDoc>()
  for (const c of contributions) {
    const key = bucketKey(accountId, c)
    const bucket = docs.get(key) ?? { kind: 'bucket', id: bucketIdOf(key), bucket: emptyBucket(c) }
    if (bucket.kind === 'bucket') applyContribution(bucket.bucket, c, 1)
    docs.set(key, bucket)
    if (c.prefix === null || c.shipped_on === null) continue
    const pkey = prefixesKey(accountId, c)
    const prefixes = docs.get(pkey) ?? { kind: 'prefixes', id: bucketIdOf(pkey), prefixes: emptyPrefixBucket(c) }
    if (prefixes.kind === 'prefixes') applyPrefixContribution(prefixes.prefixes, c, 1)
    docs.set(pkey, prefixes)
  }
  return [...docs].map(([key, doc]) => ({
    collection,
    key,
    accountId,
    id: doc.id,
    revision: 0,
    doc,
    fields: {
      kind: doc.kind,
      week: dayNumber(doc.kind === 'bucket' ? doc.bucket.week : doc.prefixes.week),
      changed: 0,
    },
  }))
}
