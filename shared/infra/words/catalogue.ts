import { readFileSync } from 'node:fs'
import { IntlMessageFormat } from 'intl-messageformat'
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
  /** What happens next, by the status it follows (a failed attempt, a pickup point). */
  next: Record<string, string>
  colon: string
}

/** One language's catalogue: the e-mails' words, each type's, and the tracking page's. */
export interface Words {
  /** The language it is written in (set on load, not in the file). */
  language: NotificationLanguage
  greeting: string
  greeting_anonymous: string
  order: string
  carrier: string
  tracking_number: string
  expected_delivery: string
  track: string
  closing: string
  /** What a label takes before its value: `:`, and a no-break space before it in French. */
  colon: string
  types: Record<string, { subject: string; body: string }>
  page: PageWords
  /** Each type's text message, and the line with the tracking link. */
  sms: Record<string, string>
}

const languages = Object.fromEntries(
  notificationLanguages.map((language) => [
    language,
    { ...JSON.parse(readFileSync(new URL(`./${language}.json`, import.meta.url), 'utf8')), language } as Words,
  ]),
) as Record<NotificationLanguage, Words>
export const wordsOf = (language: NotificationLanguage): Words => languages[language]
/**
 * A phrase of a catalogue in ICU message syntax (`{order_number}`, plurals),
 * filled in for its language as plain text: a layout escapes it where it goes.
 * A placeholder with no value reads as nothing.
 */
const formats = new Map<string, IntlMessageFormat>()
export const phrase = (words: Pick<Words, 'language'>, source: string, values: object) => {
  const key = `${words.language}\u0000${source}`
  let format = formats.get(key)
  if (!format) {
    format = new IntlMessageFormat(source, words.language)
    formats.set(key, format)
  }
  const given = values as Record<string, unknown>
  const filled = new Proxy(given, {
    get: (o, k) => (typeof k === 'string' ? (o[k] ?? '') : undefined),
    has: () => true,
  })
  return String(format.format(filled as Record<string, string>))
}
