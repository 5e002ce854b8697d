import { countryName } from '../contacts/countries.ts'
import { normalizePhone } from '../contacts/phones.ts'
import type { ConfiguredService } from '../delivery/estimate.ts'
import { validationError } from '../errors.ts'
import type { Address, FulfillmentChanges, LineItem, OrderChanges, TrackerChanges } from '../events/resources.ts'
import { LIMITS } from '../fields.ts'
import type { IdSource } from '../ids.ts'
import { buildNotification } from '../notifications/build.ts'
import type { NotificationPreferences } from '../notifications/channels.ts'
import { changed, sameValue } from '../same-value.ts'
import {
  emitted,
  findTracker,
  type FulfillmentState,
  initialFulfillmentFields,
  initialOrderFields,
  initialTrackerFields,
  type OrderState,
} from './state.ts'
import type { OrderEvent } from '../events/index.ts'
import { carrierFields, expectedDelivery, mergedAddress, shouldBuildOrderPlaced } from './upsert-trackers.ts'

/*
 * POST /v2/orders: one whole order as a store sends it on every save. Orders
 * are found by order number (else merchant_id), so v1 and v2 writes meet on
 * one order; fulfillments and line items are matched by merchant_id within
 * their list, trackers by tracking number within the order. What is not sent
 * is left as it is: removing a line item is an explicit `canceled`.
 */

/** A line item as sent; absent fields are left as they are. */
export interface LineItemInput {
  merchant_id: string
  sku?: string | null
  name?: string | null
  title?: string | null
  variant_title?: string | null
  description?: string | null
  quantity?: number | null
  shipped_quantity?: number | null
  canceled_quantity?: number | null
  canceled?: boolean | null
  requires_shipping?: boolean | null
  thumbnail?: { src: string; width: string | null; height: string | null } | null
  custom_variables?: Record<string, unknown> | null
}

/** An address as sent (`country` already read as `country_code` when it is a two-letter code). */
export type AddressInput = Partial<Omit<Address, 'id' | 'country'>>

/** A tracker as an order upsert gives it, under a fulfillment. */
export interface OrderTrackerInput {
  tracking_number: string
  carrier_code?: string | null
  carrier_service_code?: string | null
  language_code?: string | null
  /** A line item of the fulfillment (or the order) by its merchant_id, or one in full. */
  line_items?: (string | LineItemInput)[]
  /** Unix seconds. */
  expected_delivery_at?: number | null
  custom_variables?: Record<string, unknown> | null
  mute_notifications?: boolean
  /** A carrier shiplog does not know, by the name and tracking page the merchant gives it. */
  untracked_carrier_name?: string | null
  untracked_carrier_url?: string | null
}

export interface FulfillmentInput {
  merchant_id: string
  status_code?: FulfillmentStatus
  shipping_address?: AddressInput | null
  line_items?: LineItemInput[]
  custom_variables?: Record<string, unknown> | null
  trackers?: OrderTrackerInput[]
}

export interface OrderInput {
  merchant_id: string
  order_number?: string
  email?: string | null
  first_name?: string | null
  last_name?: string | null
  phone?: string | null
  /** Unix seconds. */
  ordered_at?: number | null
  language_code?: string
  mute_notifications?: boolean
  canceled?: boolean
  custom_variables?: Record<string, unknown> | null
  shipping_address?: AddressInput | null
  line_items?: LineItemInput[]
  fulfillments?: FulfillmentInput[]
}

export const fulfillmentStatuses = [
  'pending',
  'in_production',
  'in_transit_to_stock',
  'preparing_shipment',
  'shipped',
  'delayed',
  'production_delay',
  'transit_to_stock_delay',
  'partially_shipped',
  'blocked',
  'canceled',
] as const
export type FulfillmentStatus = (typeof fulfillmentStatuses)[number]

export interface UpsertOrder {
  order: OrderInput
  /** Unix seconds at which the request was received. */
  now: number
  /** The account's main language, for an order created without one. */
  accountLanguage: string
  ids: IdSource
  carrierServices?: readonly ConfiguredService[]
  notifying?: NotificationPreferences
}

/** The order number an order sent to POST /v2/orders is kept under (its stream): `order_number`, else `merchant_id`. */
export const orderNumberOf = (order: Pick<OrderInput, 'order_number' | 'merchant_id'>) =>
  order.order_number ?? order.merchant_id

/**
 * Decides the events of one order upsert. A re-send that changes nothing
 * decides nothing. Status rules: a line item whose `canceled_quantity`
 * reaches its `quantity` is canceled; a fulfillment is `canceled` when its
 * order is or every line item of it is, `shipped` when its trackers carry
 * every line item still wanted, `partially_shipped` when they carry some,
 * else the status sent (or the one it has).
 */
export function decideOrderUpsert(
  command: UpsertOrder,
  current: OrderState | undefined,
): { events: OrderEvent[]; created: boolean } {
  const { order: input, now: at, ids } = command
  const decision = new Decision(command, current)

  const country = input.shipping_address?.country_code ?? current?.fields.shipping_address?.country_code
  const proposed: OrderChanges = {
    email: input.email,
    first_name: input.first_name,
    last_name: input.last_name,
    phone: input.phone && normalizePhone(input.phone, country),
    language_code: input.language_code ?? (current ? undefined : command.accountLanguage),
    ordered_at: input.ordered_at,
    mute_notifications: input.mute_notifications,
    canceled: input.canceled,
    custom_variables: input.custom_variables,
    shipping_address: addressOf(current?.fields.shipping_address ?? null, input.shipping_address, ids),
    line_items: mergeLineItems(current?.fields.line_items ?? [], input.line_items, at, ids),
  }
  if (!current) {
    const changes = changed(initialOrderFields, proposed) ?? {}
    const data = {
      order_id: ids.next(),
      uuid: ids.uuid(),
      order_number: orderNumberOf(input),
      merchant_id: input.merchant_id,
      changes,
      at,
    }
    const order = decision.emit({ type: 'OrderCreated', data })
    if (!order.fields.canceled && shouldBuildOrderPlaced(order, at, command.notifying)) {
      decision.emit({
        type: 'NotificationBuilt',
        data: { notification: buildNotification('order_placed', order.fields, at, ids, command.notifying), at },
      })
    }
  } else {
    const changes = changed(current.fields, proposed)
    if (changes) decision.emit({ type: 'OrderUpdated', data: { changes, at } })
  }

  const sent = new Set<string>()
  for (const f of input.fulfillments ?? []) {
    if (sent.has(f.merchant_id)) {
      throw validationError(`Fulfillment ${f.merchant_id} is sent twice`, {
        'fulfillments.merchant_id': 'must be unique',
      })
    }
    sent.add(f.merchant_id)
    upsertFulfillment(decision, f)
  }
  // Canceling an order cancels the fulfillments it did not send too.
  if (decision.order.fields.canceled) {
    for (const f of decision.order.fulfillments) {
      if (!sent.has(f.merchant_id) && f.fields.status_code !== 'canceled') {
        decision.emit({
          type: 'FulfillmentUpdated',
          data: { fulfillment_id: f.id, changes: { status_code: 'canceled' }, at },
        })
      }
    }
  }
  return { events: decision.events, created: current === undefined }
}

/** An upsert being decided: the events so far, and the order as they leave it. */
class Decision {
  readonly events: OrderEvent[] = []
  #order: OrderState | undefined

  constructor(
    readonly command: UpsertOrder,
    current: OrderState | undefined,
  ) {
    this.#order = current
  }

  /** The order as decided so far (created by the first event when it was new). */
  get order(): OrderState {
    return this.#order!
  }

  emit(decided: OrderEvent): OrderState {
    this.#order = emitted(this.events, this.#order, decided)
    return this.#order
  }
}

function upsertFulfillment(decision: Decision, f: FulfillmentInput) {
  const { now: at, ids } = decision.command
  const order = decision.order
  const existing = order.fulfillments.find((x) => x.merchant_id === f.merchant_id)
  const sentItems = f.line_items?.map((li) => describedBy(li, order.fields.line_items))
  const lineItems =
    mergeLineItems(existing?.fields.line_items ?? [], sentItems, at, ids) ?? existing?.fields.line_items ?? []
  const trackers = (f.trackers ?? []).map((t) => {
    const tracker = findTracker(order, t.tracking_number)
    const held = tracker?.fields.line_items ?? []
    const sentItems = t.line_items?.map((li) =>
      typeof li === 'string'
        ? referenced(order, li, lineItems)
        : describedBy(describedBy(li, lineItems), order.fields.line_items),
    )
    return { input: t, tracker, lineItems: mergeLineItems(held, sentItems, at, ids) ?? held }
  })
  const carried = [
    ...trackers.flatMap((t) => t.lineItems),
    ...order.trackers
      .filter((t) => existing && t.fulfillment_id === existing.id && !trackers.some((s) => s.tracker?.id === t.id))
      .flatMap((t) => t.fields.line_items),
  ]
  const status = fulfillmentStatus(
    f.status_code ?? existing?.fields.status_code ?? 'pending',
    lineItems,
    carried,
    order.fields.canceled,
  )
  const proposed: FulfillmentChanges = {
    status_code: status,
    custom_variables: f.custom_variables,
    shipping_address: addressOf(existing?.fields.shipping_address ?? null, f.shipping_address, ids),
    line_items: f.line_items === undefined ? undefined : lineItems,
  }
  let fulfillment: FulfillmentState
  if (!existing) {
    const fulfillment_id = ids.next()
    const { status_code, ...rest } = proposed
    const created = decision.emit({
      type: 'FulfillmentCreated',
      data: {
        fulfillment_id,
        uuid: ids.uuid(),
        fulfillment_number: f.merchant_id,
        merchant_id: f.merchant_id,
        status_code: status_code!,
        changes: changed(initialFulfillmentFields(status_code!), rest) ?? {},
        at,
      },
    })
    fulfillment = created.fulfillments.find((x) => x.id === fulfillment_id)!
  } else {
    const changes = changed(existing.fields, proposed)
    if (changes) decision.emit({ type: 'FulfillmentUpdated', data: { fulfillment_id: existing.id, changes, at } })
    fulfillment = existing
  }
  for (const t of trackers) upsertTracker(decision, t.input, t.lineItems, fulfillment)
}

function upsertTracker(decision: Decision, t: OrderTrackerInput, lineItems: LineItem[], fulfillment: FulfillmentState) {
  const { now: at, ids, carrierServices = [] } = decision.command
  const tracker = findTracker(decision.order, t.tracking_number)
  // Assigned onto the carrier's fields, as decideTrackerUpserts does.
  const proposed: TrackerChanges = Object.assign(
    carrierFields(t, !tracker, carrierServices),
    {
      custom_variables: t.custom_variables,
      mute_notifications: t.mute_notifications,
      language_code: t.language_code,
      line_items: t.line_items === undefined ? undefined : lineItems,
      untracked_carrier_name: t.untracked_carrier_name,
      untracked_carrier_url: t.untracked_carrier_url,
    },
    expectedDelivery(t.expected_delivery_at),
  )
  if (tracker) {
    const changes = changed(tracker.fields, proposed)
    if (changes) decision.emit({ type: 'TrackerUpdated', data: { tracker_id: tracker.id, changes, at } })
    return
  }
  if (decision.order.trackers.length >= LIMITS.trackersPerOrder) {
    throw validationError(`The order would have more than ${LIMITS.trackersPerOrder} trackers`, {
      'fulfillments.trackers': `an order holds at most ${LIMITS.trackersPerOrder} trackers`,
    })
  }
  decision.emit({
    type: 'TrackerCreated',
    data: {
      tracker_id: ids.next(),
      uuid: ids.uuid(),
      fulfillment_id: fulfillment.id,
      tracking_number: t.tracking_number,
      changes: changed(initialTrackerFields, proposed) ?? {},
      at,
    },
  })
}

/** What says what a line item is, beside how many: what a fulfillment's or tracker's item takes from the order's. */
const DESCRIPTIVE = ['sku', 'name', 'title', 'variant_title', 'description', 'thumbnail', 'requires_shipping'] as const

/**
 * A fulfillment's or tracker's line item as sent, with what it does not say
 * of itself taken from the line item of the same merchant_id among `items`
 * (the order's, or the fulfillment's): `{"merchant_id": "L1", "quantity": 1}`
 * is the order's L1, its sku and name included.
 */
function describedBy(input: LineItemInput, items: readonly LineItem[]): LineItemInput {
  const item = items.find((li) => li.merchant_id === input.merchant_id)
  if (!item) return input
  const described: LineItemInput = Object.assign({}, input)
  for (const key of DESCRIPTIVE) {
    if (described[key] === undefined && item[key] !== null) Object.assign(described, { [key]: item[key] })
  }
  return described
}

/** A tracker's line item named by merchant_id: the fulfillment's (or the order's) item of that id. */
function referenced(order: OrderState, merchantId: string, fulfillmentItems: readonly LineItem[]): LineItemInput {
  const item =
    fulfillmentItems.find((li) => li.merchant_id === merchantId) ??
    order.fields.line_items.find((li) => li.merchant_id === merchantId)
  if (!item) {
    throw validationError(`Tracker line item ${merchantId} is not a line item of its fulfillment or order`, {
      'fulfillments.trackers.line_items': `${merchantId} is not a line item of the fulfillment or the order`,
    })
  }
  const { id: _id, created_at: _c, updated_at: _u, ...fields } = item
  return fields
}

/** The fulfillment status the rules force, else the one given. */
export function fulfillmentStatus(
  given: string,
  lineItems: readonly LineItem[],
  carried: readonly LineItem[],
  orderCanceled: boolean,
): string {
  if (orderCanceled) return 'canceled'
  if (lineItems.length === 0) return given
  if (lineItems.every((li) => li.canceled)) return 'canceled'
  const wanted = lineItems.filter((li) => !li.canceled)
  const shipped = (li: LineItem) =>
    carried.filter((c) => c.merchant_id === li.merchant_id).reduce((n, c) => n + (c.quantity ?? li.quantity ?? 1), 0)
  if (wanted.every((li) => shipped(li) >= (li.quantity ?? 1))) return 'shipped'
  if (wanted.some((li) => shipped(li) > 0)) return 'partially_shipped'
  return given
}

/** The line items sent, merged by merchant_id into the current ones; undefined when none were sent. */
export function mergeLineItems(
  current: readonly LineItem[],
  sent: readonly LineItemInput[] | undefined,
  at: number,
  ids: Pick<IdSource, 'next'>,
): LineItem[] | undefined {
  if (sent === undefined) return undefined
  const merged = [...current]
  for (const input of sent) {
    const index = merged.findIndex((li) => li.merchant_id === input.merchant_id)
    const base = index >= 0 ? merged[index]! : newLineItem(ids.next(), input.merchant_id, at)
    const next: LineItem = { ...base }
    for (const [key, value] of Object.entries(input)) {
      if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value
    }
    if (next.quantity !== null && next.canceled_quantity !== null && next.canceled_quantity >= next.quantity) {
      next.canceled = true
    }
    const same = index >= 0 && sameValue({ ...next, updated_at: base.updated_at }, base)
    if (same) continue
    next.updated_at = at
    if (index >= 0) merged[index] = next
    else merged.push(next)
  }
  return merged
}

/** A line item with nothing known of it but its merchant_id. */
export const newLineItem = (id: number, merchant_id: string, at: number): LineItem => ({
  id,
  merchant_id,
  sku: null,
  name: null,
  title: null,
  variant_title: null,
  description: null,
  quantity: null,
  shipped_quantity: null,
  canceled_quantity: null,
  canceled: null,
  requires_shipping: null,
  thumbnail: null,
  custom_variables: null,
  created_at: at,
  updated_at: at,
})

/** The address sent on top of the current one: null clears it, absent leaves it. */
function addressOf(current: Address | null, sent: AddressInput | null | undefined, ids: Pick<IdSource, 'next'>) {
  if (sent === undefined) return undefined
  if (sent === null) return null
  const country =
    sent.country_code === undefined ? undefined : sent.country_code && countryName(sent.country_code.toUpperCase())
  return mergedAddress(
    current,
    Object.assign({}, sent, { country_code: sent.country_code?.toUpperCase() ?? sent.country_code, country }),
    ids,
  )
}
