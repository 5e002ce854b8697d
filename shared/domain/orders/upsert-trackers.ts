import { carrierByCode, detectCarrier } from '../carriers/carriers.ts'
import { countryName } from '../contacts/countries.ts'
import { normalizePhone } from '../contacts/phones.ts'
import type { ConfiguredService } from '../delivery/estimate.ts'
import { type Address, emptyAddress, type OrderChanges, type TrackerChanges } from '../events/resources.ts'
import { validationError } from '../errors.ts'
import { LIMITS } from '../fields.ts'
import type { IdSource } from '../ids.ts'
import { buildNotification, notifies } from '../notifications/build.ts'
import type { NotificationPreferences } from '../notifications/channels.ts'
import { ORDER_PLACED_MAX_AGE_SECONDS } from '../notifications/types.ts'
import { changed } from '../same-value.ts'
import {
  emitted,
  findTracker,
  initialFulfillmentFields,
  initialOrderFields,
  initialTrackerFields,
  type OrderState,
} from './state.ts'
import type { OrderEvent } from '../events/index.ts'

/** One item of POST /v1/trackers: order data and tracker data; absent keys are left as they are. */
export interface TrackerUpsert {
  order_number: string
  tracking_number: string
  address_city?: string | null
  address_country?: string | null
  address_name?: string | null
  address_state?: string | null
  address_street?: string | null
  address_zip?: string | null
  carrier_code?: string | null
  carrier_service_code?: string | null
  custom_variables?: Record<string, unknown> | null
  email?: string | null
  /** Unix seconds. */
  expected_delivery_at?: number | null
  first_name?: string | null
  last_name?: string | null
  language_code?: string
  mute_notifications?: boolean
  /** Unix seconds. */
  order_date?: number | null
  phone?: string | null
  untracked_carrier_name?: string | null
}

/** What became of one item: the 201 body's element. */
export interface TrackerUpsertOutcome {
  id: number
  order_id: number
  fulfillment_id: number
  order_number: string
  tracking_number: string
  created: boolean
}

/** The command: the items of one order, when they arrived, and where new ids come from. */
export interface UpsertTrackers {
  items: readonly TrackerUpsert[]
  /** Unix seconds at which the request was received. */
  now: number
  /** The account's main language, used when an order has none. */
  accountLanguage: string
  ids: IdSource
  /** The account's configured carrier services: a tracker of one shows its id and name. */
  carrierServices?: readonly ConfiguredService[]
  /** The account's notification types off and channels, and whether the service sends SMS. */
  notifying?: NotificationPreferences
}

/**
 * Decides the events that upsert the trackers of one order: the order, one
 * fulfillment per tracker and the tracker, matched by (order_number,
 * tracking_number). Items are applied in request order, so a pair repeated
 * within one batch updates what the earlier item created.
 */
export function decideTrackerUpserts(
  command: UpsertTrackers,
  current: OrderState | undefined,
): { events: OrderEvent[]; outcomes: TrackerUpsertOutcome[]; order: OrderState | undefined } {
  const { now, ids } = command
  const events: OrderEvent[] = []
  const outcomes: TrackerUpsertOutcome[] = []
  let order = current
  const emit = (decided: OrderEvent) => {
    order = emitted(events, order, decided)
  }
  for (const item of command.items) {
    const at = now
    if (!order) {
      const order_id = ids.next()
      const uuid = ids.uuid()
      const changes = changed(initialOrderFields, proposedOrder(item, undefined, command)) ?? {}
      const { order_number } = item
      emit({ type: 'OrderCreated', data: { order_id, uuid, order_number, at, merchant_id: order_number, changes } })
      if (shouldBuildOrderPlaced(order!, now, command.notifying)) {
        emit({
          type: 'NotificationBuilt',
          data: { notification: buildNotification('order_placed', order!.fields, now, ids, command.notifying), at },
        })
      }
    } else {
      const changes = changed(order.fields, proposedOrder(item, order, command))
      if (changes) emit({ type: 'OrderUpdated', data: { changes, at } })
    }

    let tracker = findTracker(order, item.tracking_number)
    const trackerIsNew = !tracker
    // Assigned onto the carrier's fields, not spread after them (docs/contributing.md, objects on hot paths).
    const proposedTracker: TrackerChanges = Object.assign(
      carrierFields(item, trackerIsNew, command.carrierServices ?? []),
      {
        custom_variables: item.custom_variables,
        mute_notifications: item.mute_notifications,
        untracked_carrier_name: item.untracked_carrier_name,
      },
      expectedDelivery(item.expected_delivery_at),
    )
    if (!tracker) {
      if (order!.trackers.length >= LIMITS.trackersPerOrder) {
        throw validationError(`Order ${item.order_number} would have more than ${LIMITS.trackersPerOrder} trackers`, {
          tracking_number: `an order holds at most ${LIMITS.trackersPerOrder} trackers`,
        })
      }
      const fulfillment_id = ids.next()
      const shipping_address = mergeAddress(null, item, ids)
      const fulfillment = {
        uuid: ids.uuid(),
        fulfillment_number: item.tracking_number,
        merchant_id: item.tracking_number,
        status_code: 'shipped',
        changes: changed(initialFulfillmentFields('shipped'), { shipping_address }) ?? {},
      }
      // A new order's fulfillment rides on its tracker's event; on an existing
      // order it is a change of the order, with its own event (`order.updated`).
      if (current) emit({ type: 'FulfillmentCreated', data: { fulfillment_id, ...fulfillment, at } })
      emit({
        type: 'TrackerCreated',
        data: {
          tracker_id: ids.next(),
          uuid: ids.uuid(),
          fulfillment_id,
          tracking_number: item.tracking_number,
          changes: changed(initialTrackerFields, proposedTracker) ?? {},
          ...(current ? {} : { fulfillment }),
          at,
        },
      })
      tracker = findTracker(order, item.tracking_number)!
    } else {
      const { id, fulfillment_id } = tracker
      const fulfillment = order!.fulfillments.find((f) => f.id === fulfillment_id)!
      const fulfillmentChanges = changed(fulfillment.fields, {
        shipping_address: mergeAddress(fulfillment.fields.shipping_address, item, ids),
      })
      if (fulfillmentChanges)
        emit({ type: 'FulfillmentUpdated', data: { fulfillment_id, changes: fulfillmentChanges, at } })
      const trackerChanges = changed(tracker.fields, proposedTracker)
      if (trackerChanges) emit({ type: 'TrackerUpdated', data: { tracker_id: id, changes: trackerChanges, at } })
    }

    outcomes.push({
      id: tracker.id,
      order_id: order!.id,
      fulfillment_id: tracker.fulfillment_id,
      order_number: order!.order_number,
      tracking_number: tracker.tracking_number,
      created: trackerIsNew,
    })
  }
  return { events, outcomes, order }
}

/** The order's fields as the item sends them, on top of the order as it stands (undefined: a new order). */
function proposedOrder(item: TrackerUpsert, current: OrderState | undefined, command: UpsertTrackers): OrderChanges {
  return {
    email: item.email,
    first_name: item.first_name,
    last_name: item.last_name,
    phone:
      item.phone && normalizePhone(item.phone, item.address_country ?? current?.fields.shipping_address?.country_code),
    language_code: item.language_code ?? (current ? undefined : command.accountLanguage),
    ordered_at: item.order_date,
    shipping_address: mergeAddress(current?.fields.shipping_address ?? null, item, command.ids),
  }
}

/**
 * The merchant's carrier code wins; without one a new tracker gets the carrier
 * detected from its number, and an existing tracker keeps the carrier it has.
 */
export function carrierFields(
  item: Pick<TrackerUpsert, 'carrier_code' | 'carrier_service_code' | 'tracking_number'>,
  trackerIsNew: boolean,
  services: readonly ConfiguredService[],
): TrackerChanges {
  const match = item.carrier_code
    ? carrierByCode(item.carrier_code, item.tracking_number)
    : trackerIsNew
      ? detectCarrier(item.tracking_number)
      : undefined
  const service = item.carrier_service_code ? carrierService(item.carrier_service_code, match, services) : {}
  if (!match) return service
  return { carrier: match.carrier, tracking_link: match.trackingLink, ...service }
}

/** The configured service of that carrier and code, with its id and name; else the code alone, with no id. */
function carrierService(
  code: string,
  match: { carrier: { code: string } } | undefined,
  services: readonly ConfiguredService[],
): TrackerChanges {
  const configured = services.find((s) => s.service_code === code && s.carrier_code === match?.carrier.code)
  return {
    carrier_service: configured ? { id: configured.id, code, name: configured.name } : { id: null, code, name: code },
  }
}

export function expectedDelivery(at: number | null | undefined): TrackerChanges {
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

/** The order's own mute decides, never one of its trackers' (a tracker's mute mutes that tracker only). */
export function shouldBuildOrderPlaced(order: OrderState, now: number, notifying: NotificationPreferences | undefined) {
  const { mute_notifications, ordered_at } = order.fields
  if (mute_notifications || !notifies('order_placed', notifying)) return false
  return ordered_at === null || now - ordered_at <= ORDER_PLACED_MAX_AGE_SECONDS
}

/** The address the item describes, on top of the current one; undefined when the item sends no address field. */
function mergeAddress(current: Address | null, item: TrackerUpsert, ids: IdSource): Address | undefined {
  const street = item.address_street === undefined ? undefined : splitStreet(item.address_street)
  return mergedAddress(
    current,
    {
      name: item.address_name,
      city: item.address_city,
      state: item.address_state,
      zip: item.address_zip,
      address1: street?.address1,
      address2: street?.address2,
      country_code: item.address_country,
      country:
        item.address_country === undefined ? undefined : item.address_country && countryName(item.address_country),
    },
    ids,
  )
}

/** The fields sent (undefined: not sent) on top of the current address; undefined when nothing was sent. */
export function mergedAddress(current: Address | null, sent: Partial<Address>, ids: Pick<IdSource, 'next'>) {
  let merged: Record<string, unknown> | undefined
  for (const key in sent) {
    const value = sent[key as keyof Address]
    if (value === undefined) continue
    merged ??= current ? { ...current } : emptyAddress(ids.next())
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
