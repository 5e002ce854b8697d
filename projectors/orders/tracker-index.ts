import type { ReadStore, StoredDocument } from '../../shared/infra/read-store/port.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { OrderDoc, TrackerDoc } from './document.ts'

/*
 * A tracker lives in its order's document; the trackers read model is only
 * its index: one row per tracker, keyed `<order stream>#<tracker id>`, with
 * the fields trackers are listed and found by. A carrier event then rewrites
 * the order's document alone, and the index row only when the tracker's
 * status moves.
 */
export interface TrackerIndexDoc {
  id: number
  tracking_number: string
  delivery_status_code: string
  created_at: number
}

/** The index entry of a tracker (a document written before the index kept only these fields has them too). */
export const trackerIndexEntry = (t: TrackerIndexDoc): TrackerIndexDoc => ({
  id: t.id,
  tracking_number: t.tracking_number,
  delivery_status_code: t.delivery_status_code,
  created_at: t.created_at,
})

/** The order document an index row points to. */
export const orderDocumentKeyOf = (trackerKey: string) => trackerKey.slice(0, trackerKey.lastIndexOf('#'))

export const trackerOfOrder = (order: OrderDoc, trackerId: number): TrackerDoc | undefined => {
  for (const f of order.fulfillments) for (const t of f.trackers) if (t.id === trackerId) return t
  return undefined
}

/**
 * The trackers of these index rows as their orders' documents hold them, in
 * the rows' order; one read for all their orders. The index and the orders
 * are committed together, so every row finds its tracker.
 */
export async function trackersOf(store: ReadStore, rows: readonly StoredDocument<unknown>[]): Promise<TrackerDoc[]> {
  const orders = await store.getManyByKey<OrderDoc>(collections.orders.name, [
    ...new Set(rows.map((r) => orderDocumentKeyOf(r.key))),
  ])
  return rows.flatMap((r) => {
    const order = orders.get(orderDocumentKeyOf(r.key))
    const tracker = order && trackerOfOrder(order.doc, r.id)
    return tracker ? [tracker] : []
  })
}

/** One tracker of an account, by its id. */
export async function trackerById(store: ReadStore, accountId: number, id: number): Promise<TrackerDoc | undefined> {
  const row = await store.get(collections.trackers.name, accountId, id)
  return row && (await trackersOf(store, [row]))[0]
}

/** One tracker, by its key (`<order stream>#<tracker id>`): read from its order alone. */
export async function trackerByKey(store: ReadStore, key: string): Promise<TrackerDoc | undefined> {
  const order = await store.getByKey<OrderDoc>(collections.orders.name, orderDocumentKeyOf(key))
  return order && trackerOfOrder(order.doc, Number(key.slice(key.lastIndexOf('#') + 1)))
}
