import { allCouriers, getTracking } from 'ts-tracking-number'
import type { Carrier } from '../events/resources.ts'
import { memoize } from '../memo.ts'
import { carrierRegistry } from './registry.ts'

/**
 * Carriers as a tracker shows them. Detection comes from ts-tracking-number, a
 * maintained pattern library (UPS, USPS, FedEx, DHL, OnTrac, Amazon, S10
 * postal ids): we never keep our own regular expressions. Names and tracking
 * pages come from the registry for the carriers it lists, else the library.
 */
export interface CarrierMatch {
  carrier: Carrier
  /** The carrier's public tracking page for this number, when it has one. */
  trackingLink: string | null
}

/** Tracking page templates (`%s` for the number) and names: the library's, then the registry's over them. */
const linkTemplates = new Map<string, string>()
const names = new Map<string, string>()
for (const courier of allCouriers) {
  names.set(courier.courier_code, courier.name)
  const template = courier.tracking_numbers.map((t) => t.tracking_url).find((u): u is string => Boolean(u))
  if (template) linkTemplates.set(courier.courier_code, template)
}
for (const [code, { name, trackingPage }] of Object.entries(carrierRegistry)) {
  names.set(code, name)
  linkTemplates.set(code, trackingPage.replace('{n}', '%s'))
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
    carrier: { code, name: names.get(code) ?? match.courier.name },
    trackingLink: match.trackingUrl?.replace('%s', encodeURIComponent(trackingNumber)) ?? linkFor(code, trackingNumber),
  }
}
