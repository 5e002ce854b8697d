import type { EventTypeCode } from '../vocabulary/tracking-codes.ts'

/*
 * The carriers shiplog polls, how each one's statuses read in the event
 * vocabulary, and the limits each carrier publishes. Pure: the adapters in
 * shared/infra/carriers/ fetch, these decide. Every table here is the one in
 * docs/carrier-polling.md; a code a table does not list is an informational
 * event, never an error.
 */

export const trackingApis = ['dhl', 'laposte', 'ups', 'fedex', 'usps', 'postnl', 'gls', 'royal_mail'] as const
export type TrackingApi = (typeof trackingApis)[number]

/** The tracking API that serves each carrier code. */
export const trackingApiOf: Readonly<Record<string, TrackingApi>> = {
  dhl: 'dhl',
  dhl_express: 'dhl',
  dhl_parcel: 'dhl',
  colissimo: 'laposte',
  laposte: 'laposte',
  chronopost: 'laposte',
  ups: 'ups',
  fedex: 'fedex',
  usps: 'usps',
  postnl: 'postnl',
  gls: 'gls',
  royal_mail: 'royal_mail',
}

/** The carrier codes each API serves. */
export const carrierCodesOf = (api: TrackingApi) =>
  Object.entries(trackingApiOf)
    .filter(([, a]) => a === api)
    .map(([code]) => code)

/**
 * What each API allows when the operator sets nothing: requests a day (null:
 * no daily quota published) and a second, and how many tracking numbers one
 * call may carry.
 */
export const publishedLimits: Readonly<
  Record<TrackingApi, { perDay: number | null; perSecond: number; perCall: number }>
> = {
  // DHL's starter plan.
  dhl: { perDay: 250, perSecond: 1, perCall: 1 },
  laposte: { perDay: null, perSecond: 5, perCall: 1 },
  ups: { perDay: null, perSecond: 5, perCall: 1 },
  // FedEx: 1,400 calls in 10 s per project, 30 numbers a call.
  fedex: { perDay: 100_000, perSecond: 10, perCall: 30 },
  // USPS's default quota for a new application: 60 calls an hour.
  usps: { perDay: 1440, perSecond: 1, perCall: 1 },
  postnl: { perDay: null, perSecond: 4, perCall: 1 },
  gls: { perDay: null, perSecond: 2, perCall: 10 },
  royal_mail: { perDay: null, perSecond: 2, perCall: 1 },
}

/** A lookup that reads an unknown code as an informational event. */
const table =
  (codes: Readonly<Record<string, EventTypeCode>>) =>
  (code: string): EventTypeCode | null =>
    codes[code] ?? null

/** DHL Shipment Tracking – Unified: `statusCode` of an event (`unknown` is informational). */
export const dhlCodes: Readonly<Record<string, EventTypeCode>> = {
  'pre-transit': 'label_created',
  transit: 'transit',
  delivered: 'delivered',
  failure: 'incident',
}
export const dhlEventType = table(dhlCodes)

/** La Poste Suivi v2: an event's `code`. */
export const laposteCodes: Readonly<Record<string, EventTypeCode>> = {
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
export const laposteEventType = table(laposteCodes)

/** UPS Track API: an activity's `status.type`. */
export const upsCodes: Readonly<Record<string, EventTypeCode>> = {
  M: 'label_created',
  MV: 'incident',
  P: 'origin_scan',
  I: 'transit',
  DO: 'transit',
  DD: 'transit',
  W: 'transit',
  O: 'out_for_delivery',
  X: 'incident',
  RS: 'return',
  D: 'delivered',
}
export const upsEventType = table(upsCodes)

/** FedEx Track API: a scan event's `eventType`. */
export const fedexCodes: Readonly<Record<string, EventTypeCode>> = {
  OC: 'label_created',
  PU: 'origin_scan',
  PX: 'origin_scan',
  DR: 'drop_off',
  AR: 'transit',
  AF: 'transit',
  DP: 'transit',
  IT: 'transit',
  OF: 'transit',
  AA: 'transit',
  PL: 'transit',
  PF: 'transit',
  CC: 'transit',
  OD: 'out_for_delivery',
  DE: 'failed_attempt',
  SE: 'incident',
  CD: 'incident',
  DY: 'incident',
  CA: 'incident',
  HL: 'pickup_point',
  HP: 'pickup_point',
  RS: 'return',
  RP: 'return',
  DL: 'delivered',
}
export const fedexEventType = table(fedexCodes)

/** USPS Tracking v3: an event's `eventCode`. */
export const uspsCodes: Readonly<Record<string, EventTypeCode>> = {
  MA: 'label_created',
  GX: 'incident',
  '03': 'origin_scan',
  OA: 'origin_scan',
  '80': 'origin_scan',
  '10': 'transit',
  '07': 'transit',
  '14': 'transit',
  '81': 'transit',
  '82': 'transit',
  PC: 'transit',
  U1: 'transit',
  OF: 'out_for_delivery',
  '02': 'failed_attempt',
  '52': 'failed_attempt',
  '53': 'failed_attempt',
  '55': 'failed_attempt',
  '56': 'failed_attempt',
  '04': 'incident',
  '05': 'incident',
  '21': 'incident',
  '22': 'incident',
  '23': 'incident',
  '16': 'pickup_point',
  '09': 'return',
  '28': 'return',
  '29': 'return',
  '31': 'return',
  '01': 'delivered',
  '17': 'delivered',
  '43': 'delivered',
}
export const uspsEventType = table(uspsCodes)

/** PostNL Shipment Status v2: a status's `StatusCode`. */
export const postnlCodes: Readonly<Record<string, EventTypeCode>> = {
  '1': 'label_created',
  '2': 'origin_scan',
  '3': 'origin_scan',
  '4': 'incident',
  '5': 'transit',
  '6': 'incident',
  '7': 'out_for_delivery',
  '8': 'incident',
  '9': 'failed_attempt',
  '11': 'delivered',
  '12': 'pickup_point',
  '13': 'incident',
  '14': 'incident',
  '17': 'return',
}
export const postnlEventType = table(postnlCodes)

/** GLS Track and Trace: an event's `code`. */
export const glsCodes: Readonly<Record<string, EventTypeCode>> = {
  PREADVICE: 'label_created',
  INPICKUP: 'origin_scan',
  INTRANSIT: 'transit',
  INWAREHOUSE: 'transit',
  INDELIVERY: 'out_for_delivery',
  NOTDELIVERED: 'failed_attempt',
  DELIVEREDPS: 'pickup_point',
  CANCELED: 'incident',
  RETURNED: 'return',
  DELIVERED: 'delivered',
}
export const glsEventType = table(glsCodes)

/** Royal Mail Tracking v2: an event's `eventCode`. */
export const royalMailCodes: Readonly<Record<string, EventTypeCode>> = {
  EVAIP: 'label_created',
  EVNMI: 'origin_scan',
  EVDAC: 'transit',
  EVNRT: 'transit',
  EVORI: 'transit',
  EVGPD: 'out_for_delivery',
  EVKOP: 'out_for_delivery',
  EVDAV: 'failed_attempt',
  EVNDA: 'failed_attempt',
  EVPPA: 'pickup_point',
  EVNRS: 'incident',
  EVKRT: 'return',
  EVKSP: 'delivered',
  EVKLS: 'delivered',
  EVKSF: 'delivered',
}
export const royalMailEventType = table(royalMailCodes)

/** Every API's table, for tests and documentation. */
export const eventCodesOf: Readonly<Record<TrackingApi, Readonly<Record<string, EventTypeCode>>>> = {
  dhl: dhlCodes,
  laposte: laposteCodes,
  ups: upsCodes,
  fedex: fedexCodes,
  usps: uspsCodes,
  postnl: postnlCodes,
  gls: glsCodes,
  royal_mail: royalMailCodes,
}

/** Every La Poste code mapped, for tests and documentation. */
export const laposteEventCodes = Object.keys(laposteCodes)
