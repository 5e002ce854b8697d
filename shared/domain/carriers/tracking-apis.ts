import type { EventTypeCode } from '../orders/tracking.ts'

/*
 * The carriers shiplog polls, and how each one's statuses read in the event
 * vocabulary. Pure: the adapters in shared/infra/carriers/ fetch, these decide.
 */

/** The tracking API that serves each carrier code. */
export const trackingApiOf: Readonly<Record<string, 'dhl' | 'laposte'>> = {
  dhl: 'dhl',
  dhl_express: 'dhl',
  dhl_parcel: 'dhl',
  colissimo: 'laposte',
  laposte: 'laposte',
  chronopost: 'laposte',
}
export type TrackingApi = 'dhl' | 'laposte'

/** DHL Shipment Tracking – Unified: `statusCode` of an event. */
export function dhlEventType(statusCode: string): EventTypeCode | null {
  switch (statusCode) {
    case 'pre-transit':
      return 'label_created'
    case 'transit':
      return 'transit'
    case 'delivered':
      return 'delivered'
    case 'failure':
      return 'incident'
    default:
      // `unknown`, and anything DHL adds later, is kept as an informational event.
      return null
  }
}

const laposteCodes: Readonly<Record<string, EventTypeCode>> = {
  DR1: 'label_created',
  PC1: 'origin_scan',
  PC2: 'origin_scan',
  ET1: 'transit',
  ET2: 'transit',
  ET3: 'transit',
  ET4: 'transit',
  EP1: 'transit',
  DO1: 'transit',
  DO2: 'transit',
  DO3: 'incident',
  PB1: 'incident',
  PB2: 'incident',
  ND1: 'incident',
  MD2: 'out_for_delivery',
  AG1: 'pickup_point',
  RE1: 'return',
  DI2: 'return',
  DI0: 'delivered',
  DI1: 'delivered',
}

/** La Poste Suivi v2: an event's `code`; an unknown code is an informational event. */
export const laposteEventType = (code: string): EventTypeCode | null => laposteCodes[code] ?? null

/** Every La Poste code mapped, for tests and documentation. */
export const laposteEventCodes = Object.keys(laposteCodes)
