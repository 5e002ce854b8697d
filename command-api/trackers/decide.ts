import { isDeepStrictEqual } from 'node:util'
import { countryName, normalizePhone } from '../../shared/contacts/contacts.ts'
import { carrierByCode, detectCarrier } from '../../shared/carriers/carriers.ts'
import type { Address, OrderChanges, TrackerChanges } from '../../shared/events/resources.ts'
import { findTracker, type OrderDoc } from '../../shared/orders/document.ts'
import { evolveOrder, newFulfillment, newOrder, newTracker, type OrderEvent } from '../../shared/orders/evolve.ts'
import { ORDER_PLACED_MAX_AGE_SECONDS, notificationTypes } from '../../shared/notifications/types.ts'
import type { TrackerInput, TrackerOutcome } from './schema.ts'

export interface UpsertContext {
  /** Unix seconds at which the request was received. */
  now: number
  /** The account's main language, used when an order has none. */
  accountLanguage: string
  newId: () => number
  newUuid: () => string
}

/**
 * Decides the events that upsert the trackers of one order: the order, one
 * fulfillment per tracker and the tracker, matched by (order_number,
 * tracking_number). Items are applied in request order, so a pair repeated
 * within one batch updates what the earlier item created.
 */
export function decideTrackerUpserts(
  current: OrderDoc | undefined,
  items: readonly TrackerInput[],
  ctx: UpsertContext,
): { events: OrderEvent[]; outcomes: TrackerOutcome[]; order: OrderDoc | undefined } {
  const events: OrderEvent[] = []
  const outcomes: TrackerOutcome[] = []
  let order = current
  const emit = (event: OrderEvent) => {
    events.push(event)
    order = evolveOrder(order, event)
  }
  for (const item of items) {
    const at = ctx.now
    const proposedOrder = (current: OrderDoc | undefined): OrderChanges => ({
      email: item.email,
      first_name: item.first_name,
      last_name: item.last_name,
      phone: item.phone && normalizePhone(item.phone, item.address_country ?? current?.shipping_address?.country_code),
      language_code: item.language_code ?? (current ? undefined : ctx.accountLanguage),
      ordered_at: item.order_date,
      shipping_address: mergeAddress(current?.shipping_address ?? null, item, ctx),
    })
    if (!order) {
      const created = {
        order_id: ctx.newId(),
        uuid: ctx.newUuid(),
        order_number: item.order_number,
        merchant_id: item.order_number,
        at,
      }
      emit({
        type: 'OrderCreated',
        data: { ...created, changes: changed(newOrder(created), proposedOrder(undefined)) ?? {} },
      })
      if (shouldBuildOrderPlaced(order!, item, ctx.now)) {
        emit({ type: 'NotificationBuilt', data: { notification: orderPlaced(order!, ctx), at } })
      }
    } else {
      const changes = changed(order, proposedOrder(order))
      if (changes) emit({ type: 'OrderUpdated', data: { changes, at } })
    }

    let found = findTracker(order, item.tracking_number)
    const trackerIsNew = !found
    const proposedTracker = (): TrackerChanges =>
      Object.assign(
        carrierFields(item, trackerIsNew),
        {
          custom_variables: item.custom_variables,
          mute_notifications: item.mute_notifications,
          untracked_carrier_name: item.untracked_carrier_name,
        },
        expectedDelivery(item.expected_delivery_at),
      )
    if (!found) {
      const fulfillment = {
        fulfillment_id: ctx.newId(),
        uuid: ctx.newUuid(),
        fulfillment_number: item.tracking_number,
        merchant_id: item.tracking_number,
        status_code: 'shipped',
        at,
      }
      const fulfillmentChanges = changed(newFulfillment(fulfillment), {
        shipping_address: mergeAddress(null, item, ctx),
      })
      emit({ type: 'FulfillmentCreated', data: { ...fulfillment, changes: fulfillmentChanges ?? {} } })
      const tracker = {
        tracker_id: ctx.newId(),
        uuid: ctx.newUuid(),
        fulfillment_id: fulfillment.fulfillment_id,
        tracking_number: item.tracking_number,
        at,
      }
      emit({
        type: 'TrackerCreated',
        data: { ...tracker, changes: changed(newTracker(tracker), proposedTracker()) ?? {} },
      })
      found = findTracker(order, item.tracking_number)!
    } else {
      const { fulfillment, tracker } = found
      const fulfillmentChanges = changed(fulfillment, {
        shipping_address: mergeAddress(fulfillment.shipping_address, item, ctx),
      })
      if (fulfillmentChanges) {
        emit({ type: 'FulfillmentUpdated', data: { fulfillment_id: fulfillment.id, changes: fulfillmentChanges, at } })
      }
      const trackerChanges = changed(tracker, proposedTracker())
      if (trackerChanges)
        emit({ type: 'TrackerUpdated', data: { tracker_id: tracker.id, changes: trackerChanges, at } })
    }
    const { fulfillment, tracker } = found

    outcomes.push({
      id: tracker.id,
      order_id: order!.id,
      fulfillment_id: fulfillment.id,
      order_number: order!.order_number,
      tracking_number: tracker.tracking_number,
      created: trackerIsNew,
    })
  }
  return { events, outcomes, order }
}

/**
 * The merchant's carrier code wins; without one a new tracker gets the carrier
 * detected from its number, and an existing tracker keeps the carrier it has.
 */
function carrierFields(item: TrackerInput, trackerIsNew: boolean): TrackerChanges {
  const service = item.carrier_service_code
    ? { carrier_service: { id: null, code: item.carrier_service_code, name: item.carrier_service_code } }
    : {}
  const match = item.carrier_code
    ? carrierByCode(item.carrier_code, item.tracking_number)
    : trackerIsNew
      ? detectCarrier(item.tracking_number)
      : undefined
  if (!match) return service
  return { carrier: match.carrier, tracking_link: match.trackingLink, ...service }
}

function expectedDelivery(at: number | null | undefined): TrackerChanges {
  if (at === undefined) return {}
  if (at === null) {
    return {
      displayable_expected_delivery_date: null,
      displayable_expected_delivery_datetime: null,
      displayable_expected_delivery_kind: null,
    }
  }
  return {
    displayable_expected_delivery_date: new Date(at * 1000).toISOString().slice(0, 10),
    displayable_expected_delivery_datetime: at,
    displayable_expected_delivery_kind: 'merchant',
  }
}

function shouldBuildOrderPlaced(order: OrderDoc, item: TrackerInput, now: number) {
  if (order.mute_notifications || item.mute_notifications) return false
  return order.ordered_at === null || now - order.ordered_at <= ORDER_PLACED_MAX_AGE_SECONDS
}

function orderPlaced(order: OrderDoc, ctx: UpsertContext) {
  return {
    id: ctx.newId(),
    created_at: ctx.now,
    language_code: order.language_code,
    notification_type: notificationTypes.order_placed,
    notification_payloads: order.email
      ? [
          {
            id: ctx.newId(),
            created_at: ctx.now,
            dispatched: false,
            status: 'built',
            error: null,
            type: 'email',
            support_cced: null,
          },
        ]
      : [],
  }
}

/** The address the item describes, on top of the current one; undefined when the item sends no address field. */
function mergeAddress(current: Address | null, item: TrackerInput, ctx: UpsertContext): Address | undefined {
  const street = item.address_street === undefined ? undefined : splitStreet(item.address_street)
  const sent: Partial<Address> = {
    name: item.address_name,
    city: item.address_city,
    state: item.address_state,
    zip: item.address_zip,
    address1: street?.address1,
    address2: street?.address2,
    country_code: item.address_country,
    country: item.address_country === undefined ? undefined : item.address_country && countryName(item.address_country),
  }
  let merged: Record<string, unknown> | undefined
  for (const key in sent) {
    const value = sent[key as keyof Address]
    if (value === undefined) continue
    merged ??= Object.assign({}, current ?? emptyAddress(ctx.newId()))
    merged[key] = value
  }
  return merged as Address | undefined
}

/** A street may hold line breaks: the first line is address1, the rest address2. */
function splitStreet(street: string | null) {
  if (street === null) return { address1: null, address2: null }
  const [first = '', ...rest] = street.split(/\r?\n/).map((l) => l.trim())
  return { address1: first || null, address2: rest.filter(Boolean).join(', ') || null }
}

const emptyAddress = (id: number): Address => ({
  id,
  address1: null,
  address2: null,
  city: null,
  comment: null,
  company_title: null,
  country: null,
  country_code: null,
  first_name: null,
  last_name: null,
  name: null,
  state: null,
  zip: null,
})

/** The proposed values that differ from the current ones; undefined when none do. */
function changed<C extends object>(current: object, proposed: C): C | undefined {
  let out: Record<string, unknown> | undefined
  for (const key in proposed) {
    const value = proposed[key]
    if (value === undefined) continue
    const was = (current as Record<string, unknown>)[key]
    // Most values are strings or numbers: compared at once, objects in depth.
    if (was === value || (typeof value === 'object' && value !== null && isDeepStrictEqual(was, value))) continue
    out ??= {}
    out[key] = value
  }
  return out as C | undefined
}
