import { z } from 'zod'
import { eventTypeCodes } from '../vocabulary/tracking-codes.ts'

/*
 * Shapes of the resources as events record them and the read models keep them:
 * the spec's fields, snake_case, without `object` (added when rendering) and
 * without nested lists that are built by folding other events.
 */
const seconds = z.number().int()
const text = z.string().nullable()
const customVariables = z.record(z.string(), z.unknown()).nullable()

export const address = z.object({
  id: z.number().int(),
  address1: text,
  address2: text,
  city: text,
  comment: text,
  company_title: text,
  country: text,
  country_code: text,
  first_name: text,
  last_name: text,
  name: text,
  state: text,
  zip: text,
})
export type Address = z.infer<typeof address>

/**
 * An address as events record it: its id and the fields that are set. Most of
 * an address's thirteen fields are null, and every byte of an event is
 * serialised, parsed and written by each thread it passes; the folds expand
 * it again (`expandAddress`). Events recorded before hold every field, nulls
 * included, which reads the same.
 */
export const storedAddress = address.partial().required({ id: true })
export type StoredAddress = z.infer<typeof storedAddress>

/** The address as an event records it: its null fields left out. */
export function storedAddressOf(a: StoredAddress): StoredAddress {
  const stored: Record<string, unknown> = {}
  for (const key in a) {
    const value = a[key as keyof StoredAddress]
    if (value !== null) stored[key] = value
  }
  return stored as StoredAddress
}

/** An address recorded by an event, every field present again (null where it was left out). */
export const expandAddress = (a: StoredAddress): Address => ({ ...emptyAddress(a.id), ...a })

/** Changes as an event records them: their address, if any, with only its fields that are set. */
export function recordedChanges<C extends { shipping_address?: StoredAddress | null }>(
  changes: C,
): Omit<C, 'shipping_address'> & { shipping_address?: StoredAddress | null } {
  const a = changes.shipping_address
  return a ? { ...changes, shipping_address: storedAddressOf(a) } : changes
}

/** An event's changes as the folds apply them: their address, if any, with every field present. */
export function expandedChanges<C extends { shipping_address?: StoredAddress | null }>(
  changes: C,
): Omit<C, 'shipping_address'> & { shipping_address?: Address | null } {
  const a = changes.shipping_address
  return a ? { ...changes, shipping_address: expandAddress(a) } : (changes as Omit<C, 'shipping_address'>)
}

/** An address with every field null: what a partial one fills in. */
export const emptyAddress = (id: number): Address => ({
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

export const carrier = z.object({ code: z.string(), name: z.string() })
export type Carrier = z.infer<typeof carrier>

export const carrierService = z.object({ id: z.number().int().nullable(), code: z.string(), name: z.string() })
export type CarrierService = z.infer<typeof carrierService>

export const notificationType = z.object({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  category: z.string(),
  description: z.string(),
})
export type NotificationType = z.infer<typeof notificationType>

/**
 * A notification's type as a notification holds it: a reference into the
 * catalogue (`notifications/types.ts`), whose name and description are read
 * from it. A notification built by an earlier version holds the whole type,
 * which reads as the reference it contains.
 */
export const notificationTypeRef = notificationType.pick({ id: true, slug: true })
export type NotificationTypeRef = z.infer<typeof notificationTypeRef>

export const notificationPayload = z.object({
  id: z.number().int(),
  created_at: seconds,
  dispatched: z.boolean(),
  status: z.string(),
  error: z.string().nullable(),
  type: z.string(),
  support_cced: z.boolean().nullable(),
})
export type NotificationPayload = z.infer<typeof notificationPayload>

export const notification = z.object({
  id: z.number().int(),
  created_at: seconds,
  language_code: z.string(),
  notification_type: notificationTypeRef,
  notification_payloads: z.array(notificationPayload),
})
export type Notification = z.infer<typeof notification>

/** A line item as an order, a fulfillment or a tracker holds it; matched by `merchant_id` within its list. */
export const lineItem = z.object({
  id: z.number().int(),
  merchant_id: z.string(),
  sku: text,
  name: text,
  title: text,
  variant_title: text,
  description: text,
  quantity: z.number().int().nullable(),
  shipped_quantity: z.number().int().nullable(),
  canceled_quantity: z.number().int().nullable(),
  canceled: z.boolean().nullable(),
  requires_shipping: z.boolean().nullable(),
  thumbnail: z.object({ src: z.string(), width: z.string().nullable(), height: z.string().nullable() }).nullable(),
  custom_variables: customVariables,
  created_at: seconds,
  updated_at: seconds,
})
export type LineItem = z.infer<typeof lineItem>

/** Order fields a command may change; an absent key is left as it was. */
export const orderChanges = z
  .object({
    canceled: z.boolean(),
    custom_variables: customVariables,
    email: text,
    first_name: text,
    last_name: text,
    phone: text,
    language_code: z.string(),
    mute_notifications: z.boolean(),
    ordered_at: seconds.nullable(),
    shipping_address: address.nullable(),
    line_items: z.array(lineItem),
  })
  .partial()
export type OrderChanges = z.infer<typeof orderChanges>

export const fulfillmentChanges = z
  .object({
    custom_variables: customVariables,
    status_code: z.string(),
    shipping_address: address.nullable(),
    estimated_delivery_range_start: seconds.nullable(),
    estimated_delivery_range_end: seconds.nullable(),
    line_items: z.array(lineItem),
  })
  .partial()
export type FulfillmentChanges = z.infer<typeof fulfillmentChanges>

export const trackerChanges = z
  .object({
    carrier: carrier.nullable(),
    carrier_service: carrierService.nullable(),
    custom_variables: customVariables,
    delivery_status_code: z.string(),
    displayable_expected_delivery_date: z.string().nullable(),
    displayable_expected_delivery_datetime: seconds.nullable(),
    displayable_expected_delivery_kind: z.enum(['merchant', 'carrier', 'promise']).nullable(),
    mute_notifications: z.boolean(),
    shipped_at: seconds.nullable(),
    delivered_at: seconds.nullable(),
    first_delivery_attempted_at: seconds.nullable(),
    tracking_link: z.string().nullable(),
    untracked_carrier_name: text,
    untracked_carrier_url: text,
    line_items: z.array(lineItem),
    /** The customer's language for this parcel's notifications, over the order's. */
    language_code: z.string().nullable(),
  })
  .partial()
export type TrackerChanges = z.infer<typeof trackerChanges>

/** A carrier tracking event as a tracker records it: the spec's event resource plus its identity. */
export const trackingEvent = z.object({
  id: z.number().int(),
  /** The identity that makes a repeat of the same event a duplicate (see trackingEventKey). */
  key: z.string(),
  event_type_code: z.enum(eventTypeCodes).nullable(),
  happened_at: seconds,
  message: z.string(),
  messages: z.record(z.string(), z.string()),
  raw: z.string(),
  address: address.nullable(),
  carrier_event_id: z.string().nullable(),
  /** The carrier's latest estimate of the delivery, when the event gives one. */
  expected_delivery_at: seconds.nullable(),
})
export type TrackingEvent = z.infer<typeof trackingEvent>
