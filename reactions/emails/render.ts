import { readFileSync } from 'node:fs'
import Handlebars from 'handlebars'
import type { Notification } from '../../shared/domain/events/resources.ts'
import {
  type NotificationLanguage,
  notificationLanguageOf,
  notificationLanguages,
} from '../../shared/domain/notifications/languages.ts'
import type { OrderDoc, TrackerDoc } from '../../shared/domain/orders/document.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { brandColorsOf, trackingPageOf } from '../../shared/domain/tracking-page/settings.ts'

/*
 * A customer e-mail from the templates beside this file: per language, the
 * words of each type (`en.json`, `fr.json`), and one layout as text and one
 * as HTML (Handlebars, which escapes every value put in the HTML).
 */

/** The words of the tracking page, in the same catalogue as the e-mails'. */
export interface PageWords {
  [phrase: string]: string | Record<string, string>
  status: Record<string, string>
  steps: Record<string, string>
  expected_kind: Record<string, string>
  days: Record<string, string>
}

/** One language's catalogue: the e-mails' words, each type's, and the tracking page's. */
export interface Words {
  greeting: string
  greeting_anonymous: string
  order: string
  carrier: string
  tracking_number: string
  expected_delivery: string
  track: string
  closing: string
  types: Record<string, { subject: string; body: string }>
  page: PageWords
  /** Each type's text message, and the line with the tracking link. */
  sms: Record<string, string>
}

const template = (name: string) => readFileSync(new URL(`./templates/${name}`, import.meta.url), 'utf8')
const languages = Object.fromEntries(
  notificationLanguages.map((language) => [language, JSON.parse(template(`${language}.json`)) as Words]),
) as Record<NotificationLanguage, Words>
export const wordsOf = (language: NotificationLanguage): Words => languages[language]
const textLayout = Handlebars.compile(template('email.text.hbs'), { noEscape: true, strict: false })
const htmlLayout = Handlebars.compile(template('email.html.hbs'), { strict: false })
/** A phrase of the words files, filled in as plain text; the HTML layout escapes it where it goes. */
const phrases = new Map<string, HandlebarsTemplateDelegate>()
export const phrase = (source: string, values: object) => {
  const compiled = phrases.get(source) ?? Handlebars.compile(source, { noEscape: true })
  phrases.set(source, compiled)
  return compiled(values)
}

/** What an e-mail tells: everything it names comes from the order and the tracker. */
export interface EmailFacts {
  slug: string
  /** The customer's language; one without templates gets English. */
  language: string
  first_name: string | null
  order_number: string
  carrier: string | null
  tracking_number: string | null
  tracking_link: string | null
  /** `YYYY-MM-DD`. */
  expected_delivery_date: string | null
  /** The account's brand, as its tracking page shows it. */
  brand: { name: string; logo_url: string | null; color: string; text_color: string }
}

export interface RenderedEmail {
  subject: string
  text: string
  html: string
}

const longDate = (date: string, language: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`))

export function renderEmail(facts: EmailFacts): RenderedEmail {
  const language = notificationLanguageOf(facts.language)
  const words = languages[language]!
  const type = words.types[facts.slug]
  if (!type) throw new Error(`no e-mail template for notification type ${facts.slug}`)
  const values = {
    ...facts,
    language,
    expected_delivery: facts.expected_delivery_date && longDate(facts.expected_delivery_date, language),
  }
  const fields = {
    ...values,
    labels: words,
    subject: phrase(type.subject, values),
    greeting: facts.first_name ? phrase(words.greeting, values) : words.greeting_anonymous,
    body: phrase(type.body, values),
  }
  return { subject: fields.subject, text: textLayout(fields), html: htmlLayout(fields) }
}

/** A notification as it stands in an order document, with the tracker it is about (none for `order_placed`). */
export interface FoundNotification {
  notification: Notification
  tracker: TrackerDoc | undefined
}

/** Finds a notification in an order, on the order itself or on one of its trackers. */
export function findNotification(order: OrderDoc, notificationId: number): FoundNotification | undefined {
  const onOrder = order.notifications.find((n) => n.id === notificationId)
  if (onOrder) return { notification: onOrder, tracker: undefined }
  for (const tracker of order.fulfillments.flatMap((f) => f.trackers)) {
    const notification = tracker.notifications.find((n) => n.id === notificationId)
    if (notification) return { notification, tracker }
  }
  return undefined
}

/**
 * The facts of a notification's e-mail. An order's notification names the
 * order's first tracker, if it has one yet. The language is the
 * notification's (the order's when it was built), else the account's. The
 * button opens the order's tracking page where the service has a public
 * address, else the carrier's page.
 */
export function emailFactsOf(
  order: OrderDoc,
  found: FoundNotification,
  account: Pick<AccountDoc, 'name' | 'language_code' | 'tracking_page'>,
  trackingPageUrl: string | null,
): EmailFacts {
  const tracker = found.tracker ?? order.fulfillments.flatMap((f) => f.trackers)[0]
  const settings = trackingPageOf(account)
  const colors = brandColorsOf(settings)
  return {
    slug: found.notification.notification_type.slug,
    language: found.notification.language_code || account.language_code,
    first_name: order.first_name,
    order_number: order.order_number,
    carrier: tracker?.carrier?.name ?? tracker?.untracked_carrier_name ?? null,
    tracking_number: tracker?.tracking_number ?? null,
    tracking_link: trackingPageUrl ?? tracker?.tracking_link ?? null,
    expected_delivery_date: tracker?.displayable_expected_delivery_date ?? null,
    brand: {
      name: settings.brand_name ?? account.name,
      logo_url: settings.logo_url,
      color: colors.brand,
      text_color: colors.onBrand,
    },
  }
}
