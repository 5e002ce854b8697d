import { allCouriers, getTracking } from 'ts-tracking-number'
import type { Carrier } from '../events/resources.ts'
import { memoize } from '../memo.ts'
import { carrierRegistry } from './registry.ts'

/**
 * Carriers as a tracker shows them. Detection comes first from
 * ts-tracking-number, a maintained pattern library (UPS, USPS, FedEx, DHL,
 * OnTrac, Amazon, S10 postal ids with their check digits); the European
 * formats it does not know are below, each documented in
 * docs/carrier-polling.md. Names and tracking pages come from the registry
 * for the carriers it lists, else the library.
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

/** Carriers by their names and codes, in lower case without spaces or punctuation: what a store's free text names. */
const byName = new Map<string, string>()
const plain = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '')
for (const [code, name] of names) {
  byName.set(plain(code), code)
  if (!byName.has(plain(name))) byName.set(plain(name), code)
}

/**
 * The carrier a store names in free text (Shopify's `tracking_company`,
 * WooCommerce Shipment Tracking's `tracking_provider`): its code, its name,
 * or its first word ("DHL eCommerce" is DHL); undefined when none matches.
 */
export function carrierCodeOfName(name: string | null | undefined): string | undefined {
  if (!name?.trim()) return undefined
  return byName.get(plain(name)) ?? byName.get(plain(name.trim().split(/\s+/)[0]!))
}

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

/**
 * An S10 (UPU) number's check digit, its ninth digit: the first eight
 * weighted 8 6 4 2 3 5 9 7, eleven less the sum modulo 11 (10 is 0, 11 is 5).
 */
export function hasS10CheckDigit(number: string): boolean {
  const digits = number.slice(2, 11)
  if (!/^\d{9}$/.test(digits)) return false
  const sum = [8, 6, 4, 2, 3, 5, 9, 7].reduce((total, weight, i) => total + weight * Number(digits[i]), 0)
  const check = 11 - (sum % 11)
  return (check === 10 ? 0 : check === 11 ? 5 : check) === Number(digits[8])
}

/** Formats the library does not know, each one carrier's alone. */
const europeanFormats: readonly { code: string; format: RegExp; valid?: (number: string) => boolean }[] = [
  // Royal Mail's S10 numbers with any two service letters (the library knows only the UPU service prefixes).
  { code: 'royal_mail', format: /^[A-Z]{2}\d{9}GB$/, valid: hasS10CheckDigit },
  // Colissimo's domestic numbers: a digit, a letter, eleven digits (6A12345678901).
  { code: 'colissimo', format: /^\d[A-Z]\d{11}$/ },
  // PostNL's domestic barcodes: 3S, the customer code's four letters, then digits.
  { code: 'postnl', format: /^3S[A-Z]{4}\d{5,11}$/ },
  // DHL Parcel Benelux (JVGL…) and DHL Paket's SSCC (company prefix 340434).
  { code: 'dhl_parcel', format: /^JVGL\d{16,20}$/ },
  { code: 'dhl_parcel', format: /^00340434\d{12}$/ },
  // DPD's parcel numbers: fourteen digits from a zero.
  { code: 'dpd', format: /^0\d{13}$/ },
  // GLS's parcel numbers: eleven digits.
  { code: 'gls', format: /^\d{11}$/ },
]

/** S10 (UPU) numbers by the post that issued them (the last two letters), and for France by service. */
function s10Carrier(number: string): string | undefined {
  const country = number.slice(-2)
  if (country === 'GB') return 'royal_mail'
  if (country === 'NL') return 'postnl'
  if (country !== 'FR') return undefined
  return number.startsWith('E') ? 'chronopost' : number.startsWith('C') ? 'colissimo' : 'laposte'
}

/**
 * The carrier a number's format names; undefined when none does, or when
 * formats of two carriers match (a wrong carrier would be polled for nothing).
 */
function detect(trackingNumber: string): CarrierMatch | undefined {
  const number = trackingNumber.replace(/\s+/g, '').toUpperCase()
  const match = getTracking(number)
  const libraryCode = match && (match.courier.code === 's10' ? (s10Carrier(number) ?? 's10') : match.courier.code)
  const codes = new Set([
    ...(libraryCode ? [libraryCode] : []),
    ...europeanFormats.filter((f) => f.format.test(number) && (f.valid?.(number) ?? true)).map((f) => f.code),
  ])
  if (codes.size !== 1) return undefined
  const [code] = codes as Set<string>
  const libraryLink = libraryCode === match?.courier.code ? match?.trackingUrl : undefined
  return {
    carrier: { code: code!, name: names.get(code!) ?? match?.courier.name ?? code! },
    trackingLink: libraryLink?.replace('%s', encodeURIComponent(trackingNumber)) ?? linkFor(code!, trackingNumber),
  }
}
