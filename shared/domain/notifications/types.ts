import type { NotificationType, NotificationTypeRef } from '../events/resources.ts'
import type { DeliveryStatusCode } from '../vocabulary/tracking-codes.ts'

const type = (id: number, slug: string, name: string, category: string, description: string): NotificationType => ({
  id,
  slug,
  name,
  category,
  description,
})

/** The catalogue of notification types; ids are fixed so every replay renders the same resources. */
export const notificationTypes = {
  order_placed: type(
    1,
    'order_placed',
    'Order placed',
    'pre_shipment',
    'Sent when the service receives an order; not sent when the order was placed more than 36 hours before it is imported.',
  ),
  shipped: type(2, 'shipped', 'Shipped', 'package_shipped', 'Sent when the parcel first moves with its carrier.'),
  out_for_delivery: type(
    3,
    'out_for_delivery',
    'Out for delivery',
    'package_shipped',
    'Sent when the parcel is out for delivery.',
  ),
  failed_attempt: type(
    4,
    'failed_attempt',
    'Failed delivery attempt',
    'failed_delivery_attempt',
    'Sent when the carrier could not deliver the parcel.',
  ),
  available_for_pickup: type(
    5,
    'available_for_pickup',
    'Available for pickup',
    'pickup_point',
    'Sent when the parcel waits at a pickup point.',
  ),
  exception: type(
    6,
    'exception',
    'Delivery exception',
    'other_incidents',
    'Sent when the carrier reports an incident.',
  ),
  delivered: type(7, 'delivered', 'Delivered', 'package_delivered', 'Sent when the parcel is delivered.'),
  returned: type(8, 'returned', 'Returned', 'other', 'Sent when the parcel goes back to the sender.'),
  delayed: type(
    9,
    'delayed',
    'Delayed',
    'other_incidents',
    'Sent once per delay when the parcel is late or stalled (and at risk, where the delay rules ask), with its revised date.',
  ),
} as const satisfies Record<string, NotificationType>

export type NotificationSlug = keyof typeof notificationTypes
export const notificationSlugs = Object.keys(notificationTypes) as NotificationSlug[]

/**
 * The type a notification refers to, as the catalogue has it. A type the
 * catalogue no longer lists reads as the notification stored it (the whole
 * type, where an earlier version stored that), its slug for a name.
 */
export const notificationTypeOf = (ref: NotificationTypeRef): NotificationType =>
  Object.hasOwn(notificationTypes, ref.slug)
    ? notificationTypes[ref.slug as NotificationSlug]
    : { name: ref.slug, category: 'other', description: '', ...ref }

/** An order placed longer ago than this when it reaches us gets no order_placed notification. */
export const ORDER_PLACED_MAX_AGE_SECONDS = 36 * 3600

/** The type a tracker reaching this status is told of, besides `shipped`. */
const typeOfStatus: Partial<Record<DeliveryStatusCode, NotificationSlug>> = {
  out_for_delivery: 'out_for_delivery',
  failed_attempt: 'failed_attempt',
  available_for_pickup: 'available_for_pickup',
  exception: 'exception',
  delivered: 'delivered',
  returned: 'returned',
}

/** Statuses that say the parcel has moved with its carrier: reaching the first of them is `shipped`. */
const shippedStatuses = new Set<DeliveryStatusCode>([
  'in_transit',
  'out_for_delivery',
  'failed_attempt',
  'available_for_pickup',
  'delivered',
])

/** Steps past shipping: a parcel told of one knows it moves, and is never told `shipped` after. */
const pastShipping = new Set<string>(['out_for_delivery', 'failed_attempt', 'available_for_pickup', 'delivered'])

/**
 * The notification type a status change builds for a tracker, given the
 * types it was already notified of: each type once per tracker. A parcel
 * whose first movement is already a later step (out for delivery, a failed
 * attempt, a pickup point, delivered) is told of that step only, and never
 * of `shipped` afterwards: its message says more than "shipped" would.
 */
export function notificationOfStatus(
  to: DeliveryStatusCode,
  notified: readonly string[],
): NotificationSlug | undefined {
  const step = typeOfStatus[to]
  if (step) return notified.includes(step) ? undefined : step
  return shippedStatuses.has(to) && !notified.some((n) => n === 'shipped' || pastShipping.has(n))
    ? 'shipped'
    : undefined
}
