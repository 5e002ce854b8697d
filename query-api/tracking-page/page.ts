import { z } from 'zod'
import { memoize } from '../../shared/domain/memo.ts'
import { deliveryAddressOf, type OrderDoc, type TrackerDoc } from '../../shared/domain/orders/document.ts'
import type { PickupPointDoc } from '../../projectors/pickup-points/pickup-point.ts'
import { phrase, wordsOf, type Words } from '../../shared/infra/words/catalogue.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import type { Address } from '../../shared/domain/events/resources.ts'
import { timeZoneAt } from '../../shared/domain/contacts/time-zones.ts'
import { type NotificationLanguage, notificationLanguages } from '../../shared/domain/notifications/languages.ts'
import { pickupPlace, sameStreet } from '../../shared/domain/pickup-points/pickup-point.ts'
import { weekdays } from '../../shared/domain/events/pickup-point-events.ts'
import type { DeliveryStatusCode } from '../../shared/domain/vocabulary/tracking-codes.ts'
import { delayStatuses } from '../../shared/domain/events/order-events.ts'
import { trackingPageOf } from '../../shared/domain/tracking-page/settings.ts'

/*
 * What a customer's tracking page shows, built from the read models only:
 * the JSON twin (`/track/{token}.json`) is this, and the HTML page renders
 * it. It holds no more of the customer than the page needs, and every label
 * in the page's language.
 */

const text = z.string().nullable()

export const trackingPageData = z
  .object({
    object: z.literal('tracking_page'),
    order_number: z.string(),
    language: z.enum(notificationLanguages),
    brand: z.object({
      name: text,
      logo_url: text,
      primary_color: text,
      support_email: text,
      support_url: text,
    }),
    customer: z.object({
      first_name: text,
      city: text,
      zip: text,
      country_code: text,
      /** The last name, e-mail, phone and street: null unless the account shows contact details. */
      last_name: text,
      email: text,
      phone: text,
      address1: text,
      address2: text,
    }),
    time_zone: z.string().meta({ description: 'The zone the times are given in: the delivery address’s' }),
    line_items: z.array(z.object({ name: text, quantity: z.number().int().nullable(), image_url: text })),
    parcels: z.array(
      z.object({
        tracking_number: z.string(),
        carrier: z.object({ code: z.string(), name: z.string() }).nullable(),
        tracking_link: text,
        delivery_status_code: z.string(),
        status: z.string().meta({ description: 'The status in words, in the page’s language' }),
        tone: z.enum(['normal', 'problem', 'done']),
        next: text.meta({ description: 'What happens next, after a failed attempt or at a pickup point, in words' }),
        delay: z
          .object({ status: z.enum(delayStatuses), label: z.string(), note: z.string() })
          .nullable()
          .meta({ description: 'Why the parcel is behind, in words (docs/estimation.md); null when it is not' }),
        steps: z.array(
          z.object({
            code: z.enum(['ordered', 'shipped', 'out_for_delivery', 'delivered']),
            label: z.string(),
            state: z.enum(['done', 'current', 'upcoming']),
          }),
        ),
        expected_delivery: z
          .object({ date: z.string(), kind: z.string().nullable(), label: z.string(), kind_label: text })
          .nullable(),
        delivered_at: text,
        delivered: text.meta({ description: 'When it was delivered, in words' }),
        pickup_point: z
          .object({
            name: text,
            address1: text,
            address2: text,
            city: text,
            postal_code: text,
            country_code: text,
            opening_hours: z.array(z.object({ day: z.string(), hours: z.string() })).nullable(),
          })
          .nullable(),
        events: z.array(
          z.object({
            happened_at: z.string(),
            time: z.string().meta({ description: 'When, in words, in the page’s time zone' }),
            event_type_code: text,
            message: z.string(),
            place: text,
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'TrackingPage', description: 'What an order’s tracking page shows, for a page of your own' })
export type TrackingPageData = z.output<typeof trackingPageData>
type Parcel = TrackingPageData['parcels'][number]

export interface PageSources {
  order: OrderDoc
  account: AccountDoc
  language: NotificationLanguage
  /** The account's pickup points at the places of the order's pickup events. */
  pickupPoints: readonly PickupPointDoc[]
}

/** The places of the pickup points the page may show: where each parcel waiting for pickup is. */
export const pickupPlacesOf = (order: OrderDoc): string[] =>
  trackersOf(order).flatMap((t) => {
    const address = pickupEventOf(t)?.address
    return address?.country_code && address.zip ? [pickupPlace(address.country_code, address.zip)] : []
  })

export function buildTrackingPage({ order, account, language, pickupPoints }: PageSources): TrackingPageData {
  const settings = trackingPageOf(account)
  const words = wordsOf(language)
  const address = deliveryAddressOf(order)
  const timeZone = timeZoneAt(address?.country_code ?? null, address?.state ?? null) ?? 'UTC'
  const shown = settings.show_contact_details
  const trackers = trackersOf(order)
  return {
    object: 'tracking_page',
    order_number: order.order_number,
    language,
    brand: {
      name: settings.brand_name ?? account.name,
      logo_url: settings.logo_url,
      primary_color: settings.primary_color,
      support_email: settings.support_email,
      support_url: settings.support_url,
    },
    customer: {
      first_name: order.first_name ?? address?.first_name ?? null,
      city: address?.city ?? null,
      zip: address?.zip ?? null,
      country_code: address?.country_code ?? null,
      last_name: shown ? (order.last_name ?? address?.last_name ?? null) : null,
      email: shown ? order.email : null,
      phone: shown ? order.phone : null,
      address1: shown ? (address?.address1 ?? null) : null,
      address2: shown ? (address?.address2 ?? null) : null,
    },
    time_zone: timeZone,
    line_items: order.line_items.map((item) => ({
      name: item.title ?? item.name,
      quantity: item.quantity,
      // Only https images: the page's policy loads nothing else.
      image_url: item.thumbnail?.src.startsWith('https://') ? item.thumbnail.src : null,
    })),
    parcels: trackers.map((t) => parcelOf(t, words, language, timeZone, pickupPoints)),
  }
}

const trackersOf = (order: OrderDoc) => order.fulfillments.flatMap((f) => f.trackers)

const STEPS = ['ordered', 'shipped', 'out_for_delivery', 'delivered'] as const

/** Where a status stands on the four steps, and how it reads; a problem stays on the step it happened at. */
const progressOf = (t: TrackerDoc): { step: number; tone: Parcel['tone'] } => {
  const status = t.delivery_status_code as DeliveryStatusCode
  const moved = t.shipped_at === null ? 0 : 1
  switch (status) {
    case 'pending':
    case 'info_received':
      return { step: 0, tone: 'normal' }
    case 'in_transit':
      return { step: 1, tone: 'normal' }
    case 'out_for_delivery':
    case 'available_for_pickup':
      return { step: 2, tone: 'normal' }
    case 'failed_attempt':
      return { step: 2, tone: 'problem' }
    case 'exception':
    case 'expired':
      return { step: moved, tone: 'problem' }
    case 'delivered':
      return { step: 3, tone: 'done' }
    case 'returned':
      return { step: 3, tone: 'problem' }
  }
}

/** The label of each step: the step a parcel stands at says what happened there when it is not the usual. */
const stepLabel = (code: (typeof STEPS)[number], current: boolean, t: TrackerDoc, words: Words) => {
  const status = t.delivery_status_code
  if (current && ['failed_attempt', 'available_for_pickup', 'returned'].includes(status))
    return words.page.status[status]!
  return words.page.steps[code]!
}

function parcelOf(
  t: TrackerDoc,
  words: Words,
  language: NotificationLanguage,
  timeZone: string,
  pickupPoints: readonly PickupPointDoc[],
): Parcel {
  const { step, tone } = progressOf(t)
  const delay = t.delay ?? null
  // A delayed parcel's revised estimate replaces the date it has passed or will miss.
  const revised = delay?.expected_delivery_date ?? null
  const date = revised ?? t.displayable_expected_delivery_date
  const kind = revised ? 'revised' : t.displayable_expected_delivery_kind
  const when = dateTimeFormat(`${language}|${timeZone}|medium`)
  return {
    tracking_number: t.tracking_number,
    carrier: t.carrier ?? (t.untracked_carrier_name ? { code: 'other', name: t.untracked_carrier_name } : null),
    tracking_link: t.tracking_link ?? t.untracked_carrier_url,
    delivery_status_code: t.delivery_status_code,
    status: words.page.status[t.delivery_status_code] ?? t.delivery_status_code,
    tone: delay && tone === 'normal' ? 'problem' : tone,
    delay: delay && {
      status: delay.status,
      label: words.page.delay[delay.status] ?? delay.status,
      note: words.page.delay_note,
    },
    next: words.page.next[t.delivery_status_code] ?? null,
    steps: STEPS.map((code, i) => ({
      code,
      label: stepLabel(code, i === step, t, words),
      state: i < step || (i === step && tone === 'done') ? 'done' : i === step ? 'current' : 'upcoming',
    })),
    expected_delivery:
      date && t.delivered_at === null
        ? {
            date,
            kind,
            label: longDate(date, language),
            kind_label: kind ? (words.page.expected_kind[kind] ?? null) : null,
          }
        : null,
    delivered_at: t.delivered_at === null ? null : new Date(t.delivered_at * 1000).toISOString(),
    delivered:
      t.delivered_at === null
        ? null
        : withZone(when.format(new Date(t.delivered_at * 1000)), new Date(t.delivered_at * 1000), language, timeZone),
    pickup_point: t.delivery_status_code === 'available_for_pickup' ? pickupPointOf(t, words, pickupPoints) : null,
    // People read a timeline by when things happened, newest first.
    events: [...t.events]
      .sort((a, b) => b.happened_at - a.happened_at || b.id - a.id)
      .map((e) => ({
        happened_at: new Date(e.happened_at * 1000).toISOString(),
        time: withZone(when.format(new Date(e.happened_at * 1000)), new Date(e.happened_at * 1000), language, timeZone),
        event_type_code: e.event_type_code,
        message: e.messages[language] ?? e.message,
        place: placeOf(e.address, language),
      })),
  }
}

/** A formatter per language, zone and style: making one costs more than the rest of a page. */
const dateTimeFormat = memoize((key: string) => {
  const [language, timeZone, style] = key.split('|') as [string, string, string]
  return style === 'full'
    ? new Intl.DateTimeFormat(language, { dateStyle: 'full', timeZone })
    : new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone })
}, 1000)

const longDate = (date: string, language: string) =>
  dateTimeFormat(`${language}|UTC|full`).format(new Date(`${date}T00:00:00Z`))

/** A country's name in the page's language ("France", "Frankreich"), its code when Intl has none. */
const countryNames = memoize((language: string) => new Intl.DisplayNames([language], { type: 'region' }))
const countryName = (code: string, language: string) => {
  try {
    return countryNames(language).of(code.toUpperCase()) ?? code
  } catch {
    return code
  }
}

const placeOf = (a: Address | null, language: string) => {
  const country = a?.country_code ? countryName(a.country_code, language) : null
  const where = [a?.zip && a.city ? `${a.zip} ${a.city}` : a?.city, country].filter(Boolean).join(', ')
  return where || null
}

/** A time in the parcel's zone, naming the zone ("CET", "MEZ", "UTC+1"; "UTC" without an address). */
const zoneNames = memoize((key: string) => {
  const [language, timeZone] = key.split('|') as [string, string]
  // English names the European zones by their abbreviations where en-GB does.
  return new Intl.DateTimeFormat(language === 'en' ? 'en-GB' : language, { timeZone, timeZoneName: 'short' })
})
const withZone = (formatted: string, date: Date, language: string, timeZone: string) => {
  const zone = zoneNames(`${language}|${timeZone}`)
    .formatToParts(date)
    .find((p) => p.type === 'timeZoneName')?.value
  return zone ? `${formatted} ${zone}` : formatted
}

const pickupEventOf = (t: TrackerDoc) =>
  t.events.filter((e) => e.event_type_code === 'pickup_point').sort((a, b) => b.happened_at - a.happened_at)[0]

/**
 * Where a parcel waits: the point the account imported at the carrier's
 * address (same country, postcode and street) with its name and hours, else
 * the address as the carrier gave it.
 */
function pickupPointOf(t: TrackerDoc, words: Words, points: readonly PickupPointDoc[]): Parcel['pickup_point'] {
  const address = pickupEventOf(t)?.address
  if (!address) return null
  const imported = points.find(
    (p) =>
      address.country_code !== null &&
      address.zip !== null &&
      pickupPlace(p.country_code, p.postal_code) === pickupPlace(address.country_code, address.zip) &&
      (address.address1 === null || sameStreet(p.address1, address.address1)),
  )
  if (!imported) {
    const { name, address1, address2, city, zip, country_code } = address
    return { name, address1, address2, city, postal_code: zip, country_code, opening_hours: null }
  }
  return {
    name: imported.name,
    address1: imported.address1,
    address2: imported.address2,
    city: imported.city,
    postal_code: imported.postal_code,
    country_code: imported.country_code,
    opening_hours: weekdays.map((day) => {
      const h = imported.opening_hours[day]
      const spans = [
        [h.am_opening, h.am_closing],
        [h.pm_opening, h.pm_closing],
      ].filter(([from, to]) => from && to)
      const hours = spans.map(([from, to]) => `${from}–${to}`).join(', ')
      return { day: words.page.days[day]!, hours: hours || (words.page.closed as string) }
    }),
  }
}

/** A phrase of the page's words with the order's values. */
export const pagePhrase = (words: Words, key: string, values: object) =>
  phrase(words, words.page[key] as string, values)
