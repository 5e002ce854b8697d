import type { NotificationType } from '../events/resources.ts'

/** The catalogue of notification types; ids are fixed so every replay renders the same resources. */
export const notificationTypes = {
  order_placed: {
    id: 1,
    slug: 'order_placed',
    name: 'Order placed',
    category: 'pre_shipment',
    description:
      'Sent when the service receives an order; not sent when the order was placed more than 36 hours before it is imported.',
  },
} as const satisfies Record<string, NotificationType>

/** An order placed longer ago than this when it reaches us gets no order_placed notification. */
export const ORDER_PLACED_MAX_AGE_SECONDS = 36 * 3600
