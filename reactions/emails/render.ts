import { readFileSync } from 'node:fs'
import Handlebars from 'handlebars'
import { notificationLanguageOf } from '../../shared/domain/notifications/languages.ts'
import type { FoundNotification, OrderDoc } from '../../shared/domain/orders/document.ts'
import { phrase, wordsOf } from '../../shared/infra/words/catalogue.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { brandColorsOf, trackingPageOf } from '../../shared/domain/tracking-page/settings.ts'

/*
 * A customer e-mail: the words of the catalogue (shared/infra/words/) in one
 * layout as text and one as HTML from the templates beside this file
 * (Handlebars, which escapes every value put in the HTML).
 */

const template = (name: string) => readFileSync(new URL(`./templates/${name}`, import.meta.url), 'utf8')
const textLayout = Handlebars.compile(template('email.text.hbs'), { noEscape: true, strict: false })
const htmlLayout = Handlebars.compile(template('email.html.hbs'), { strict: false })
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
  const words = wordsOf(language)
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
    subject: phrase(words, type.subject, values),
    greeting: facts.first_name ? phrase(words, words.greeting, values) : words.greeting_anonymous,
    body: phrase(words, type.body, values),
  }
  return { subject: fields.subject, text: textLayout(fields), html: htmlLayout(fields) }
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
    // A delayed parcel's revised estimate replaces the date it has passed or will miss.
    expected_delivery_date:
      tracker?.delay?.expected_delivery_date ?? tracker?.displayable_expected_delivery_date ?? null,
    brand: {
      name: settings.brand_name ?? account.name,
      logo_url: settings.logo_url,
      color: colors.brand,
      text_color: colors.onBrand,
    },
  }
}
