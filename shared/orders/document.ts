import type { Address, Carrier, CarrierService, Notification } from '../events/resources.ts'

/*
 * The order as one document: the aggregate's state on the write side and the
 * orders read model on the read side, built by the same evolve function. Field
 * names are the spec's; `object` is added when rendering.
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

export interface LineItemDoc {
  id: number
  canceled: boolean | null
  canceled_quantity: number | null
  quantity: number | null
  shipped_quantity: number | null
  created_at: number
  updated_at: number
  custom_variables: Record<string, unknown> | null
  description: string | null
  name: string | null
  title: string | null
  variant_title: string | null
  merchant_id: string
  requires_shipping: boolean | null
  sku: string
  thumbnail: { src: string; width: string; height: string } | null
}

export interface TrackerDoc {
  id: number
  uuid: string
  fulfillment_id: number
  created_at: number
  updated_at: number
  shipped_at: number | null
  delivered_at: number | null
  first_delivery_attempted_at: number | null
  custom_variables: Record<string, unknown> | null
  delivery_status_code: string
  displayable_expected_delivery_date: string | null
  displayable_expected_delivery_datetime: number | null
  displayable_expected_delivery_kind: 'merchant' | 'carrier' | 'promise' | null
  mute_notifications: boolean
  tracking_number: string
  tracking_link: string | null
  untracked_carrier_name: string | null
  untracked_carrier_url: string | null
  carrier: Carrier | null
  carrier_service: CarrierService | null
  events: CarrierEventDoc[]
  notifications: Notification[]
  line_items: LineItemDoc[]
  claims: unknown[]
}

export interface FulfillmentDoc {
  id: number
  uuid: string
  created_at: number
  updated_at: number
  custom_variables: Record<string, unknown> | null
  estimated_delivery_range_start: number | null
  estimated_delivery_range_end: number | null
  fulfillment_number: string
  merchant_id: string
  status_code: string
  line_items: LineItemDoc[]
  shipping_address: Address | null
  trackers: TrackerDoc[]
  notifications: Notification[]
}

export interface OrderDoc {
  id: number
  uuid: string
  canceled: boolean
  created_at: number
  updated_at: number
  ordered_at: number | null
  custom_variables: Record<string, unknown> | null
  email: string | null
  first_name: string | null
  last_name: string | null
  phone: string | null
  language_code: string
  merchant_id: string
  mute_notifications: boolean
  order_number: string
  fulfillments: FulfillmentDoc[]
  line_items: LineItemDoc[]
  notifications: Notification[]
  shipping_address: Address | null
}

/** Order numbers are merchant strings: escaped so any of them is a safe stream name. */
export const orderStream = (accountId: number, orderNumber: string) =>
  `order-${accountId}_${encodeURIComponent(orderNumber)}`

export const findTracker = (order: OrderDoc | undefined, trackingNumber: string) => {
  for (const f of order?.fulfillments ?? []) {
    const tracker = f.trackers.find((t) => t.tracking_number === trackingNumber)
    if (tracker) return { fulfillment: f, tracker }
  }
  return undefined
}
