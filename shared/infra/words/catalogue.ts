import { readFileSync } from 'node:fs'
import Handlebars from 'handlebars'
import { type NotificationLanguage, notificationLanguages } from '../../domain/notifications/languages.ts'

/*
 * The words customers read, one catalogue a language (`<language>.json`
 * beside this file): each notification's e-mail and text message, and the
 * tracking page's. The e-mail and SMS senders, their previews and the page
 * all read them here.
 */

/** The words of the tracking page, in the same catalogue as the e-mails'. */
export interface PageWords {
  [phrase: string]: string | Record<string, string>
  status: Record<string, string>
  steps: Record<string, string>
  expected_kind: Record<string, string>
  days: Record<string, string>
  /** Each delay status in words, and what the page says of a delayed parcel. */
  delay: Record<string, string>
  delay_note: string
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

const languages = Object.fromEntries(
  notificationLanguages.map((language) => [
    language,
    JSON.parse(readFileSync(new URL(`./${language}.json`, import.meta.url), 'utf8')) as Words,
  ]),
) as Record<NotificationLanguage, Words>
export const wordsOf = (language: NotificationLanguage): Words => languages[language]
/** A phrase of the catalogue, filled in as plain text; an HTML layout escapes it where it goes. */
const phrases = new Map<string, HandlebarsTemplateDelegate>()
export const phrase = (source: string, values: object) => {
  const compiled = phrases.get(source) ?? Handlebars.compile(source, { noEscape: true })
  phrases.set(source, compiled)
  return compiled(values)
}
