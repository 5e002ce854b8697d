import { delayStatuses, type DelayStatus } from '../shared/domain/events/order-events.ts'
import { deliveryAddressOf, type OrderDoc, type TrackerDoc } from '../shared/domain/orders/document.ts'
import { deliveryStatusCodes } from '../shared/domain/vocabulary/tracking-codes.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Condition } from '../shared/infra/read-store/port.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { parcelsOf, type TrackerIndexDoc } from '../projectors/orders/tracker-index.ts'

/*
 * The parcels the console lists: found through the trackers index (or, for
 * a search, the orders index), each read from its order's document with the
 * order it belongs to.
 */

const TRACKERS = collections.trackers.name
const ORDERS = collections.orders.name
export const PAGE_SIZE = 50

/** A parcel and its order, as a row of the console shows them. */
export interface Parcel {
  order: OrderDoc
  tracker: TrackerDoc
}

export interface ParcelFilters {
  q?: string
  status?: string
  carrier?: string
  delay?: string
  /** The id of the last parcel of the page before: the next page starts below it. */
  before?: number
}

/** The filters a query string asks for, each kept only when it is one the console knows. */
export function filtersOf(query: Record<string, string | undefined>): ParcelFilters {
  const before = Number(query.before)
  return {
    q: query.q?.trim() || undefined,
    status: (deliveryStatusCodes as readonly string[]).includes(query.status ?? '') ? query.status : undefined,
    carrier: query.carrier?.trim() || undefined,
    delay: [...delayStatuses, 'any'].includes(query.delay ?? '') ? query.delay : undefined,
    before: Number.isInteger(before) && before > 0 ? before : undefined,
  }
}

const parcelsOfOrders = (orders: readonly OrderDoc[]): Parcel[] =>
  orders.flatMap((order) => order.fulfillments.flatMap((f) => f.trackers.map((tracker) => ({ order, tracker }))))

/**
 * A page of the account's parcels, newest first, under the filters; a search
 * (`q`) finds them by tracking number (spaces and case aside), order number
 * or customer e-mail, and says when it found exactly one order.
 */
export async function findParcels(
  rt: Pick<Runtime, 'readStore'>,
  accountId: number,
  filters: ParcelFilters,
): Promise<{ parcels: Parcel[]; hasMore: boolean; onlyOrder?: OrderDoc }> {
  if (filters.q) return searchParcels(rt, accountId, filters.q)
  const where: Condition[] = []
  if (filters.status) where.push({ field: 'delivery_status_code', op: 'eq', value: filters.status })
  if (filters.carrier) where.push({ field: 'carrier_code', op: 'eq', value: filters.carrier })
  if (filters.delay)
    where.push({
      field: 'delay_status',
      op: 'in',
      values: filters.delay === 'any' ? delayStatuses : [filters.delay],
    })
  const page = await rt.readStore.find<TrackerIndexDoc>(TRACKERS, {
    accountId,
    where,
    endingBefore: filters.before,
    limit: PAGE_SIZE,
  })
  return { parcels: await parcelsOf(rt.readStore, page.docs), hasMore: page.hasMore }
}

async function searchParcels(rt: Pick<Runtime, 'readStore'>, accountId: number, q: string) {
  const compact = q.replace(/\s+/g, '')
  for (const number of new Set([q, compact, compact.toUpperCase()])) {
    const found = await rt.readStore.find<TrackerIndexDoc>(TRACKERS, {
      accountId,
      where: [{ field: 'tracking_number', op: 'eq', value: number }],
      limit: PAGE_SIZE,
    })
    if (found.docs.length > 0) return answer(await parcelsOf(rt.readStore, found.docs))
  }
  const byNumber = await rt.readStore.find<OrderDoc>(ORDERS, {
    accountId,
    where: [{ field: 'order_number', op: 'eq', value: q }],
    limit: PAGE_SIZE,
  })
  const byEmail = q.includes('@')
    ? await rt.readStore.find<OrderDoc>(ORDERS, {
        accountId,
        where: [{ field: 'email', op: 'eq', value: q.toLowerCase() }],
        limit: PAGE_SIZE,
      })
    : { docs: [], hasMore: false }
  const orders = [...byNumber.docs, ...byEmail.docs].map((d) => d.doc)
  return { ...answer(parcelsOfOrders(orders), orders), hasMore: byEmail.hasMore }
}

/** A search's parcels, and the order when they are all of one. */
function answer(parcels: Parcel[], orders: readonly OrderDoc[] = parcels.map((p) => p.order)) {
  const ids = new Set(orders.map((o) => o.id))
  return { parcels, hasMore: false, onlyOrder: ids.size === 1 ? orders[0] : undefined }
}

/** Where a parcel goes, for a row: the customer's name and e-mail, the city and country. */
export function customerOf(order: OrderDoc) {
  const address = deliveryAddressOf(order)
  return {
    name: [order.first_name, order.last_name].filter(Boolean).join(' ') || null,
    email: order.email,
    place: [address?.city, address?.country_code].filter(Boolean).join(', ') || null,
  }
}

/** The delayed parcels of an account, the longest delayed first: open, or those handled. */
export async function delayedParcels(rt: Pick<Runtime, 'readStore'>, accountId: number, handled: boolean) {
  const page = await rt.readStore.find<TrackerIndexDoc>(TRACKERS, {
    accountId,
    where: handled
      ? [{ field: 'delay_status', op: 'in', values: delayStatuses }]
      : [{ field: 'delay_open', op: 'eq', value: 1 }],
    limit: 500,
  })
  const parcels = await parcelsOf(rt.readStore, page.docs)
  const severity = (s: DelayStatus | undefined) =>
    s ? delayStatuses.length - ['late', 'stalled', 'at_risk'].indexOf(s) : 0
  return parcels
    .filter((p) => Boolean(p.tracker.delay_handled) === handled)
    .sort(
      (a, b) =>
        severity(b.tracker.delay?.status) - severity(a.tracker.delay?.status) ||
        (a.tracker.delay?.since ?? 0) - (b.tracker.delay?.since ?? 0),
    )
}
