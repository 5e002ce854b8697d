import type { TrackerChanges } from '../../shared/domain/events/resources.ts'
import { finalStatuses } from '../../shared/domain/orders/polling.ts'
import { initialTrackerFields } from '../../shared/domain/orders/state.ts'
import type { ReadStore, StoredDocument } from '../../shared/infra/read-store/port.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import {
  changesPoll,
  evolveTrackerPoll,
  trackerPollEventTypes,
  type TrackerPoll,
  type TrackerPollEvent,
} from '../polls/tracker-poll.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import type { DelayStatus } from '../../shared/domain/events/order-events.ts'
import { delayCheckAfter, movesDelayCheck } from '../../shared/domain/delivery/delays.ts'

const pollEventTypes: ReadonlySet<string> = new Set(trackerPollEventTypes)
const isPollEvent = (event: TrackerIndexEvent): event is TrackerPollEvent => pollEventTypes.has(event.type)
import type { OrderDoc, TrackerDoc } from '../../shared/domain/orders/document.ts'

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
  /** Its carrier's code (absent from entries stored before it was kept: read as none). */
  carrier_code?: string | null
  /** Its polling, for a tracker whose carrier has (or had) a tracking API. */
  poll?: TrackerPoll
  /** Its delay's status, and when the delay is next looked at (absent from entries stored before: none). */
  delay_status?: DelayStatus | null
  delay_check_at?: number | null
  /** Whether someone dealt with its current delay (the console's delays page lists the others). */
  delay_handled?: boolean
}

/** The events a tracker's index entry follows. */
export type TrackerIndexEvent =
  | TrackerPollEvent
  | Extract<
      OrderEvent,
      { type: 'TrackerDelayChanged' | 'TrackerDelayChecked' | 'TrackerDelayHandled' | 'TrackerDelayReopened' }
    >

/** The events that move a tracker's index entry: its creation, its status, its carrier, its polls and its delay. */
export const movesTrackerIndex = (event: { type: string; data: unknown }): event is TrackerIndexEvent =>
  event.type === 'TrackerCreated' ||
  event.type === 'TrackerStatusChanged' ||
  (event.type === 'TrackerUpdated' &&
    (event.data as { changes: TrackerChanges }).changes.delivery_status_code !== undefined) ||
  changesPoll(event) ||
  movesDelayCheck(event as OrderEvent) ||
  event.type === 'TrackerDelayHandled' ||
  event.type === 'TrackerDelayReopened'

/** The index's own fields of a tracker (a document stored before the index kept only these is trimmed to them). */
const entryOf = ({
  id,
  tracking_number,
  delivery_status_code,
  created_at,
  carrier_code,
  delay_status,
  delay_check_at,
  delay_handled,
}: TrackerIndexDoc): TrackerIndexDoc => ({
  id,
  tracking_number,
  delivery_status_code,
  created_at,
  carrier_code: carrier_code ?? null,
  delay_status: delay_status ?? null,
  delay_check_at: delay_check_at ?? null,
  delay_handled: delay_handled ?? false,
})

/** A tracker's index entry after one of its events (undefined before its creation). */
export function evolveTrackerIndex(doc: TrackerIndexDoc | undefined, event: TrackerIndexEvent) {
  let entry: TrackerIndexDoc
  if (event.type === 'TrackerCreated') {
    // Straight from the event: a bulk load creates thousands, and folding each whole tracker to keep four fields costs more than the row.
    const { tracker_id, tracking_number, changes, at } = event.data
    entry = {
      id: tracker_id,
      tracking_number,
      delivery_status_code: changes.delivery_status_code ?? initialTrackerFields.delivery_status_code,
      created_at: at,
      carrier_code: changes.carrier?.code ?? null,
      delay_status: null,
      delay_check_at: null,
      delay_handled: false,
    }
  } else if (!doc) return undefined
  else {
    const status =
      event.type === 'TrackerStatusChanged'
        ? event.data.to
        : event.type === 'TrackerUpdated'
          ? event.data.changes.delivery_status_code
          : undefined
    entry = { ...entryOf(doc), delivery_status_code: status ?? doc.delivery_status_code }
  }
  if (event.type === 'TrackerUpdated' && event.data.changes.carrier !== undefined)
    entry.carrier_code = event.data.changes.carrier?.code ?? null
  const ended = finalStatuses.has(entry.delivery_status_code)
  if (event.type === 'TrackerDelayChanged') {
    entry.delay_status = event.data.delay?.status ?? null
    entry.delay_handled = false
  }
  if (event.type === 'TrackerDelayHandled') entry.delay_handled = true
  if (event.type === 'TrackerDelayReopened') entry.delay_handled = false
  entry.delay_check_at = delayCheckAfter(entry.delay_check_at ?? null, event, entry.delay_status != null, ended)
  const poll = isPollEvent(event) ? evolveTrackerPoll(doc?.poll, event, ended) : doc?.poll
  if (poll) entry.poll = poll
  return entry
}

/** The order document an index row points to. */
export const orderDocumentKeyOf = (trackerKey: string) => trackerKey.slice(0, trackerKey.lastIndexOf('#'))

export const trackerOfOrder = (order: OrderDoc, trackerId: number): TrackerDoc | undefined => {
  for (const f of order.fulfillments) for (const t of f.trackers) if (t.id === trackerId) return t
  return undefined
}

/**
 * The trackers of these index rows as their orders' documents hold them,
 * each with its order, in the rows' order; one read for all their orders.
 * The index and the orders are committed together, so every row finds its
 * tracker.
 */
export async function parcelsOf(
  store: ReadStore,
  rows: readonly StoredDocument<unknown>[],
): Promise<{ order: OrderDoc; tracker: TrackerDoc }[]> {
  const orders = await store.getManyByKey<OrderDoc>(collections.orders.name, [
    ...new Set(rows.map((r) => orderDocumentKeyOf(r.key))),
  ])
  return rows.flatMap((r) => {
    const order = orders.get(orderDocumentKeyOf(r.key))?.doc
    const tracker = order && trackerOfOrder(order, r.id)
    return order && tracker ? [{ order, tracker }] : []
  })
}

/** The trackers of these index rows, in the rows' order. */
export const trackersOf = async (store: ReadStore, rows: readonly StoredDocument<unknown>[]) =>
  (await parcelsOf(store, rows)).map((p) => p.tracker)

/** One tracker, by its key (`<order stream>#<tracker id>`): read from its order alone. */
export async function trackerByKey(store: ReadStore, key: string): Promise<TrackerDoc | undefined> {
  const order = await store.getByKey<OrderDoc>(collections.orders.name, orderDocumentKeyOf(key))
  return order && trackerOfOrder(order.doc, Number(key.slice(key.lastIndexOf('#') + 1)))
}
