import type { EventTypeCode } from '../vocabulary/tracking-codes.ts'

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
