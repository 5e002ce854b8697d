import type { Address, LineItem, Notification } from '../events/resources.ts'
import type { Delay, DelayOutcome } from '../events/order-events.ts'
import type { FulfillmentFields, OrderFields, TrackerFields } from './state.ts'

/*
 * The order as the orders read model keeps it: one fully expanded document
 * per order, every nested list included, so a page of orders is one query.
 * Field names are the spec's; `object` is added when rendering.
 */
export interface CarrierEventDoc {
  id: number
  event_type_code: string | null
  happened_at: number
  message: string
  raw: string
  messages: Record<string, string>
  address: Address | null
}

export type LineItemDoc = LineItem

export interface TrackerDoc extends TrackerFields {
  id: number
  uuid: string
  fulfillment_id: number
  created_at: number
  updated_at: number
  tracking_number: string
  events: CarrierEventDoc[]
  notifications: Notification[]
  line_items: LineItemDoc[]
  claims: Record<string, unknown>[]
  /** Absent from documents stored before delays were kept: none. */
  delay?: Delay | null
  /** Who dealt with the current delay, and when (the console's; the API does not show it). */
  delay_handled?: { by: string; at: number; outcome?: DelayOutcome; note?: string } | null
  /** Whether the current delay was handled once and is open again: undone, or a new delay since (the console's). */
  delay_reopened?: boolean
}

export interface FulfillmentDoc extends FulfillmentFields {
  id: number
  uuid: string
  created_at: number
  updated_at: number
  fulfillment_number: string
  merchant_id: string
  line_items: LineItemDoc[]
  trackers: TrackerDoc[]
  notifications: Notification[]
}

export interface OrderDoc extends OrderFields {
  id: number
  uuid: string
  created_at: number
  updated_at: number
  merchant_id: string
  order_number: string
  fulfillments: FulfillmentDoc[]
  line_items: LineItemDoc[]
  notifications: Notification[]
  /** The tracking page's current link (part of its token); absent until first rotated, which is link 0. */
  tracking_link_id?: number
}

/** Where an order goes: its shipping address, else its first fulfillment's. */
export const deliveryAddressOf = (order: OrderDoc): Address | null =>
  order.shipping_address ?? order.fulfillments.find((f) => f.shipping_address)?.shipping_address ?? null

/** A notification as it stands in an order document, with the tracker it is about (none for `order_placed`). */
export interface FoundNotification {
  notification: Notification
  tracker: TrackerDoc | undefined
}

/** Finds a notification in an order, on the order itself or on one of its trackers. */
export function findNotification(order: OrderDoc, notificationId: number): FoundNotification | undefined {
  const onOrder = order.notifications.find((n) => n.id === notificationId)
  if (onOrder) return { notification: onOrder, tracker: undefined }
  for (const tracker of order.fulfillments.flatMap((f) => f.trackers)) {
    const notification = tracker.notifications.find((n) => n.id === notificationId)
    if (notification) return { notification, tracker }
  }
  return undefined
}
