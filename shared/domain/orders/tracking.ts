/*
 * The vocabulary of carrier tracking events and the delivery status each one
 * moves a tracker to; the README's "Tracking events" lists them for merchants.
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

/**
 * What a parcel's scans have shown so far that its delivery history keeps:
 * its earliest scan naming a country (where it left from), and whether it
 * met a failed attempt and an incident.
 */
export interface ScansSeen {
  origin_at: number | null
  failed_attempt: boolean
  exception: boolean
}

export const scanFirsts = ['origin', 'failed_attempt', 'incident'] as const
/** A scan that is its parcel's earliest naming a country so far, its first failed attempt, or its first incident. */
export type ScanFirst = (typeof scanFirsts)[number]

/** Which of its parcel's firsts a scan is, after the scans `seen`: a scan that is none changes no delivery fact. */
export function firstsOf(
  seen: ScansSeen,
  scan: {
    event_type_code: EventTypeCode | null
    happened_at: number
    address?: { country_code?: string | null } | null
  },
): ScanFirst[] {
  const firsts: ScanFirst[] = []
  const country = scan.address?.country_code ?? null
  if (country !== null && (seen.origin_at === null || scan.happened_at < seen.origin_at)) firsts.push('origin')
  if (!seen.failed_attempt && scan.event_type_code === 'failed_attempt') firsts.push('failed_attempt')
  if (!seen.exception && scan.event_type_code === 'incident') firsts.push('incident')
  return firsts
}

/** What the scans have shown once `scan`, being the `firsts` given, is seen too. */
export function scansSeenAfter<S extends ScansSeen>(
  seen: S,
  scan: { happened_at: number },
  firsts: readonly ScanFirst[],
): S {
  if (firsts.length === 0) return seen
  return {
    ...seen,
    origin_at: firsts.includes('origin') ? scan.happened_at : seen.origin_at,
    failed_attempt: seen.failed_attempt || firsts.includes('failed_attempt'),
    exception: seen.exception || firsts.includes('incident'),
  }
}

/**
 * An event's identity, the same however often it is sent or polled: the
 * carrier's own event id when it gives one, otherwise a digest of what the
 * event says, with the carrier given (the tracker's, else the event's):
 * FNV-1a, 2 × 32 bits, a pure function, not a secret.
 */
export function trackingEventKey(
  e: {
    tracking_number: string
    carrier_event_id?: string | null
    happened_at: number
    event_type_code: EventTypeCode | null
    message?: string | null
  },
  carrierCode: string | null | undefined,
): string {
  if (e.carrier_event_id) return `carrier:${e.carrier_event_id}`
  const text = JSON.stringify([
    e.tracking_number,
    carrierCode ?? null,
    e.happened_at,
    e.event_type_code,
    e.message ?? '',
  ])
  // Both halves in one pass over the text; Math.imul and ^ keep 32 bits, read unsigned at the end.
  let low = 0x811c9dc5
  let high = 0x01000193
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    low = Math.imul(low ^ c, 0x01000193)
    high = Math.imul(high ^ c, 0x01000193)
  }
  return `digest:${hex32(low)}${hex32(high)}`
}

const hex32 = (hash: number) => (hash >>> 0).toString(16).padStart(8, '0')
