import { stringify } from 'csv-stringify/sync'
import { isCalendarDate, localDayOf } from '../shared/domain/delivery/calendar.ts'
import {
  type DelayReason,
  delayReasons,
  delayStatuses,
  type DelayStatus,
} from '../shared/domain/events/order-events.ts'
import { deliveryAddressOf, type OrderDoc, type TrackerDoc } from '../shared/domain/orders/document.ts'
import { type DeliveryStatusCode, deliveryStatusCodes } from '../shared/domain/vocabulary/tracking-codes.ts'
import { finalStatuses } from '../shared/domain/orders/polling.ts'
import { wholeDaysBetween } from '../shared/domain/time.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Condition, StoredDocument } from '../shared/infra/read-store/port.ts'
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

/** The parcels page's tabs: which delivery statuses each shows. */
export const parcelViews = {
  active: {
    label: 'Active',
    statuses: deliveryStatusCodes.filter((s) => !finalStatuses.has(s)),
    empty: 'No parcel is on its way.',
  },
  attention: {
    label: 'Needs attention',
    statuses: ['failed_attempt', 'available_for_pickup', 'exception'],
    empty: 'No parcel needs attention: none failed delivery, waits at a pickup point or met an exception.',
  },
  delivered: { label: 'Delivered', statuses: ['delivered'], empty: 'No parcel is delivered yet.' },
  closed: { label: 'Closed', statuses: ['returned', 'expired'], empty: 'No parcel was returned or expired.' },
  all: { label: 'All', statuses: deliveryStatusCodes, empty: 'No parcels yet.' },
} as const satisfies Record<string, { label: string; statuses: readonly DeliveryStatusCode[]; empty: string }>
export type ParcelView = keyof typeof parcelViews
const viewNames = Object.keys(parcelViews) as ParcelView[]

export interface ParcelFilters {
  /** The tab: active parcels unless another is asked for. */
  view: ParcelView
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
    view: viewNames.includes(query.view as ParcelView) ? (query.view as ParcelView) : 'active',
    q: query.q?.trim() || undefined,
    status: (deliveryStatusCodes as readonly string[]).includes(query.status ?? '') ? query.status : undefined,
    carrier: query.carrier?.trim() || undefined,
    delay: [...delayStatuses, 'any'].includes(query.delay ?? '') ? query.delay : undefined,
    before: Number.isInteger(before) && before > 0 ? before : undefined,
  }
}

const parcelsOfOrders = (orders: readonly OrderDoc[]): Parcel[] =>
  orders.flatMap((order) => order.fulfillments.flatMap((f) => f.trackers.map((tracker) => ({ order, tracker }))))

/** The statuses a view shows under the status filter: the view's, or the one asked for when the view has it. */
const statusesOf = (filters: Pick<ParcelFilters, 'view' | 'status'>): readonly string[] => {
  const statuses: readonly string[] = parcelViews[filters.view].statuses
  return filters.status ? statuses.filter((s) => s === filters.status) : statuses
}

/** The conditions of the filters but the status. */
const othersOf = (filters: ParcelFilters): Condition[] => {
  const where: Condition[] = []
  if (filters.carrier) where.push({ field: 'carrier_code', op: 'eq', value: filters.carrier })
  if (filters.delay)
    where.push({
      field: 'delay_status',
      op: 'in',
      values: filters.delay === 'any' ? delayStatuses : [filters.delay],
    })
  return where
}

/**
 * A page of the account's parcels, newest first, under the filters; a search
 * (`q`) finds them by tracking number (spaces and case aside), order number
 * or customer e-mail, whatever the tab, and says when it found exactly one
 * order. A tab of several statuses reads a page of each on its status's
 * index and keeps the newest: one index range each, where one query over
 * all of them would sort every parcel they hold. A delay filter, the
 * narrowest, reads its own index and keeps the tab's statuses in memory.
 */
export async function findParcels(
  rt: Pick<Runtime, 'readStore'>,
  accountId: number,
  filters: ParcelFilters,
): Promise<{ parcels: Parcel[]; hasMore: boolean; onlyOrder?: OrderDoc }> {
  if (filters.q) return searchParcels(rt, accountId, filters.q)
  const others = othersOf(filters)
  const statuses = statusesOf(filters)
  const page = (where: Condition[], endingBefore = filters.before) =>
    rt.readStore.find<TrackerIndexDoc>(TRACKERS, { accountId, where, endingBefore, limit: PAGE_SIZE })
  if (filters.delay || statuses.length === deliveryStatusCodes.length) {
    const wanted = new Set(statuses)
    const kept: StoredDocument<TrackerIndexDoc>[] = []
    let before = filters.before
    for (let read = 0; read < DELAYED_PAGES_READ; read++) {
      const found = await page(others, before)
      kept.push(...found.docs.filter((d) => wanted.has(d.doc.delivery_status_code)))
      before = found.docs.at(-1)?.id
      if (!found.hasMore || kept.length >= PAGE_SIZE)
        return {
          parcels: await parcelsOf(rt.readStore, kept.slice(0, PAGE_SIZE)),
          hasMore: found.hasMore || kept.length > PAGE_SIZE,
        }
    }
    return { parcels: await parcelsOf(rt.readStore, kept.slice(0, PAGE_SIZE)), hasMore: true }
  }
  const pages = await Promise.all(
    statuses.map((value) => page([{ field: 'delivery_status_code', op: 'eq', value }, ...others])),
  )
  const newest = pages.flatMap((p) => p.docs).sort((a, b) => b.id - a.id)
  return {
    parcels: await parcelsOf(rt.readStore, newest.slice(0, PAGE_SIZE)),
    hasMore: newest.length > PAGE_SIZE || pages.some((p) => p.hasMore),
  }
}

/** Pages of delayed parcels read for one page of a tab: delayed parcels are nearly all active. */
const DELAYED_PAGES_READ = 10

/** Counted up to this many a tab: "1,000+" beyond. */
export const COUNTED_UP_TO = 1000

/**
 * How many parcels each tab holds under the other filters: each status
 * counted on its index up to COUNTED_UP_TO; under a delay filter, the
 * delayed parcels (up to as many) tallied by status.
 */
export async function viewCounts(rt: Pick<Runtime, 'readStore'>, accountId: number, filters: ParcelFilters) {
  const others = othersOf(filters)
  const counted = new Map<string, number>()
  /** Whether parcels were left uncounted: a tab with some then has more. */
  let beyond = false
  if (filters.delay) {
    const delayed = await rt.readStore.find<TrackerIndexDoc>(TRACKERS, {
      accountId,
      where: others,
      limit: COUNTED_UP_TO,
    })
    beyond = delayed.hasMore
    for (const { doc } of delayed.docs)
      if (!filters.status || filters.status === doc.delivery_status_code)
        counted.set(doc.delivery_status_code, (counted.get(doc.delivery_status_code) ?? 0) + 1)
  } else {
    await Promise.all(
      statusesOf({ view: 'all', status: filters.status }).map(async (value) =>
        counted.set(
          value,
          await rt.readStore.count(
            TRACKERS,
            { accountId, where: [{ field: 'delivery_status_code', op: 'eq', value }, ...others] },
            COUNTED_UP_TO,
          ),
        ),
      ),
    )
  }
  return viewNames.map((view) => {
    const count = parcelViews[view].statuses.reduce((sum, s) => sum + (counted.get(s) ?? 0), 0)
    return {
      view,
      label: parcelViews[view].label,
      count:
        count >= COUNTED_UP_TO
          ? `${COUNTED_UP_TO.toLocaleString('en')}+`
          : `${count.toLocaleString('en')}${beyond && count > 0 ? '+' : ''}`,
      any: count > 0,
    }
  })
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

/** Every parcel the filters match, a page of at most PAGE_SIZE at a time (a search's one page): an export's. */
export async function* everyParcel(rt: Pick<Runtime, 'readStore'>, accountId: number, filters: ParcelFilters) {
  let before = filters.before
  for (;;) {
    const page = await findParcels(rt, accountId, { ...filters, before })
    yield page.parcels
    const last = page.parcels.at(-1)
    if (!page.hasMore || !last || filters.q) return
    before = last.tracker.id
  }
}

type CarrierEvent = TrackerDoc['events'][number]

/** A parcel's newest carrier event, by when it happened. */
export const newestEventOf = (tracker: Pick<TrackerDoc, 'events'>) =>
  tracker.events.reduce<CarrierEvent | undefined>(
    (newest, e) => (!newest || e.happened_at > newest.happened_at ? e : newest),
    undefined,
  )

/** What a carrier event says: its message, else its English one. */
export const wordsOf = (e: CarrierEvent) => e.message || e.messages.en || ''

/** Where a carrier event happened: its city and country, as far as known. */
export const placeOf = (e: CarrierEvent) => [e.address?.city, e.address?.country_code].filter(Boolean).join(', ')

/**
 * A parcel as a row shows it, on the page and in its export: its customer,
 * its newest carrier event, the day it should arrive (or arrived), and its
 * days in transit from shipping to delivery or now.
 */
export function rowOf(p: Parcel, now: number) {
  const { tracker } = p
  const last = newestEventOf(tracker)
  return {
    ...p,
    customer: customerOf(p.order),
    lastEvent: last && {
      message: wordsOf(last),
      place: placeOf(last),
      at: last.happened_at,
    },
    expected: tracker.delay?.expected_delivery_date ?? tracker.displayable_expected_delivery_date ?? null,
    daysInTransit:
      tracker.shipped_at == null ? null : wholeDaysBetween(tracker.shipped_at, tracker.delivered_at ?? now),
  }
}
export type ParcelRow = ReturnType<typeof rowOf>

/** The filters as a query string, with `extra` over them; a page's `before` only when `extra` names it. */
export function queryOf(filters: ParcelFilters, extra: Partial<Record<keyof ParcelFilters, string | number>> = {}) {
  const params = new URLSearchParams()
  // The default tab goes without saying.
  for (const [k, v] of Object.entries({ ...filters, before: undefined, ...extra }))
    if (v !== undefined && !(k === 'view' && v === 'active')) params.set(k, String(v))
  return params.toString()
}

const PARCEL_CSV_COLUMNS = [
  'order_number',
  'tracking_number',
  'carrier',
  'service',
  'status',
  'delay',
  'customer',
  'email',
  'city',
  'country_code',
  'shipped_at',
  'expected_delivery_date',
  'delivered_at',
  'days_in_transit',
  'last_event',
  'last_event_place',
  'last_event_at',
] as const

const isoTime = (seconds: number | null | undefined) =>
  seconds == null ? null : new Date(seconds * 1000).toISOString()

/**
 * Rows of a parcels export as CSV, the header first when asked. A text a
 * spreadsheet would run as a formula (=, +, -, @ first) starts with a quote,
 * as OWASP advises for files opened in one.
 */
export function parcelsCsv(rows: readonly ParcelRow[], header: boolean) {
  return stringify(
    rows.map(({ order, tracker, customer, lastEvent, expected, daysInTransit }) => {
      const address = deliveryAddressOf(order)
      return {
        order_number: order.order_number,
        tracking_number: tracker.tracking_number,
        carrier: tracker.carrier?.name ?? tracker.untracked_carrier_name,
        service: tracker.carrier_service?.name,
        status: tracker.delivery_status_code,
        delay: tracker.delay?.status,
        customer: customer.name,
        email: customer.email,
        city: address?.city,
        country_code: address?.country_code,
        shipped_at: isoTime(tracker.shipped_at),
        expected_delivery_date: expected,
        delivered_at: isoTime(tracker.delivered_at),
        days_in_transit: daysInTransit,
        last_event: lastEvent?.message,
        last_event_place: lastEvent?.place,
        last_event_at: isoTime(lastEvent?.at),
      }
    }),
    { header, columns: [...PARCEL_CSV_COLUMNS], cast: { string: (v) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v) } },
  )
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

/** What the delays list can be narrowed to: a reason, a carrier, a destination country, flagged since a day. */
export interface DelayFilters {
  reason?: DelayReason
  carrier?: string
  country?: string
  since?: string
}

/** The delay filters a query string asks for, each kept only when it is one the console knows. */
export function delayFiltersOf(query: Record<string, string | undefined>): DelayFilters {
  const country = query.country?.trim().toUpperCase()
  const since = query.since?.trim()
  return {
    reason: (delayReasons as readonly string[]).includes(query.reason ?? '')
      ? (query.reason as DelayReason)
      : undefined,
    carrier: query.carrier?.trim().toLowerCase() || undefined,
    country: country && /^[A-Z]{2}$/.test(country) ? country : undefined,
    since: since && isCalendarDate(since) ? since : undefined,
  }
}

/** Whether a delayed parcel is one the filters keep, its day flagged the account's (`zone`). */
export function keptBy(filters: DelayFilters, { order, tracker }: Parcel, zone: string) {
  const flagged = tracker.delay ? localDayOf(zone, tracker.delay.since) : undefined
  return (
    (!filters.reason || tracker.delay?.reason === filters.reason) &&
    (!filters.carrier || tracker.carrier?.code === filters.carrier) &&
    (!filters.country || deliveryAddressOf(order)?.country_code?.toUpperCase() === filters.country) &&
    (!filters.since || (flagged !== undefined && flagged >= filters.since))
  )
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
