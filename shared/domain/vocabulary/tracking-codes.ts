/*
 * The vocabulary of carrier tracking events and the delivery status each one
 * moves a tracker to; the README's "Tracking events" lists them for merchants.
 * The domain's ground floor: it imports nothing else of the domain.
 */

export const eventTypeCodes = [
  'label_created',
  'origin_scan',
  'transit',
  'drop_off',
  'out_for_delivery',
  'failed_attempt',
  'pickup_point',
  'incident',
  'delivered',
  'return',
  'expired',
] as const
export type EventTypeCode = (typeof eventTypeCodes)[number]

export const deliveryStatusCodes = [
  'pending',
  'info_received',
  'in_transit',
  'out_for_delivery',
  'failed_attempt',
  'available_for_pickup',
  'exception',
  'delivered',
  'returned',
  'expired',
] as const
export type DeliveryStatusCode = (typeof deliveryStatusCodes)[number]

/** The status an event moves its tracker to; an informational event (null) moves nothing. */
export const statusOfEvent: Record<EventTypeCode, DeliveryStatusCode> = {
  label_created: 'info_received',
  origin_scan: 'in_transit',
  transit: 'in_transit',
  drop_off: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  failed_attempt: 'failed_attempt',
  pickup_point: 'available_for_pickup',
  incident: 'exception',
  delivered: 'delivered',
  return: 'returned',
  expired: 'expired',
}

/** Events that show the parcel moving: the earliest one is when it shipped. */
export const carrierMovements: ReadonlySet<EventTypeCode> = new Set([
  'origin_scan',
  'transit',
  'drop_off',
  'out_for_delivery',
  'delivered',
])

/** Events that are an attempt to deliver: the earliest one is the first delivery attempt. */
export const deliveryAttempts: ReadonlySet<EventTypeCode> = new Set(['failed_attempt', 'delivered'])

export const scanFirsts = ['origin', 'failed_attempt', 'incident'] as const
/** A scan that is its parcel's earliest naming a country so far, its first failed attempt, or its first incident. */
export type ScanFirst = (typeof scanFirsts)[number]
