import { z } from 'zod'
import { emailAddress, LIMITS, tooLong } from '../fields.ts'

/*
 * An account's tracking page: the brand its customers see there and in the
 * e-mails, and how much of an order the page may show. Every field is
 * checked here, where a change is accepted, so the page can trust what it
 * renders (it still escapes every value).
 */

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/
const MAX_CUSTOM_CSS = 20_000

const webAddress = (protocols: RegExp, message: string) =>
  z
    .string()
    .max(LIMITS.shortText, tooLong(LIMITS.shortText))
    .refine((v) => URL.canParse(v) && protocols.test(new URL(v).protocol), message)

export const trackingPageSettings = z.object({
  /** Shown at the top of the page and the e-mails: https only, so a page served over https loads it. */
  logo_url: webAddress(/^https:$/, 'must be an https:// address').nullable(),
  brand_name: z.string().trim().min(1, 'must not be empty').max(100, tooLong(100)).nullable(),
  primary_color: z.string().regex(HEX_COLOR, 'must be a colour #RRGGBB').nullable(),
  support_email: emailAddress.nullable(),
  support_url: webAddress(/^https?:$/, 'must be an http:// or https:// address').nullable(),
  /** Off (null) by default; kept out of the page's HTML except as one hashed style sheet, so it cannot close it. */
  custom_css: z
    .string()
    .max(MAX_CUSTOM_CSS, tooLong(MAX_CUSTOM_CSS))
    .refine((v) => !v.includes('<'), 'must not contain <')
    .nullable(),
  /** Whether the page shows the customer's e-mail, phone and street; off, only first name, city and postcode. */
  show_contact_details: z.boolean(),
})
export type TrackingPageSettings = z.infer<typeof trackingPageSettings>

export const defaultTrackingPage: TrackingPageSettings = {
  logo_url: null,
  brand_name: null,
  primary_color: null,
  support_email: null,
  support_url: null,
  custom_css: null,
  show_contact_details: false,
}

/** The account's settings, or the defaults for an account that never changed them. */
export const trackingPageOf = (account: { tracking_page?: TrackingPageSettings }): TrackingPageSettings =>
  account.tracking_page ?? defaultTrackingPage

const DEFAULT_BRAND_COLOR = '#1a56db'

/** A #RRGGBB colour's relative luminance, as WCAG defines it: 0 for black, 1 for white. */
export function luminanceOf(hex: string) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** WCAG's contrast ratio of two #RRGGBB colours, from 1 (none) to 21 (black on white). */
export function contrastRatio(a: string, b: string) {
  const [lighter, darker] = [luminanceOf(a), luminanceOf(b)].sort((x, y) => y - x) as [number, number]
  return (lighter + 0.05) / (darker + 0.05)
}

/** The brand colour, and black or white for text on it, whichever contrasts more. */
export function brandColorsOf(settings: TrackingPageSettings): { brand: string; onBrand: string } {
  const brand = settings.primary_color ?? DEFAULT_BRAND_COLOR
  return { brand, onBrand: contrastRatio(brand, '#000000') > contrastRatio(brand, '#ffffff') ? '#000000' : '#ffffff' }
}
