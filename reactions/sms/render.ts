import { SegmentedMessage } from 'sms-segments-calculator'
import SmartEncoding from 'sms-segments-calculator/dist/libs/SmartEncodingMap.js'
import { notificationLanguageOf } from '../../shared/domain/notifications/languages.ts'
import { phrase, wordsOf } from '../../shared/infra/words/catalogue.ts'

/*
 * A customer's text message, from the same catalogue as the e-mails: the
 * brand's name first, what happened, and the tracking page's link when the
 * service has a public address. It is written in GSM-7 where it can be (a
 * text of 153 characters a segment rather than 67): typography such as ’ and
 * – becomes its GSM twin (Twilio's Smart Encoding table), a letter GSM lacks
 * (ê, ç) loses its accent; only what has no such form (an emoji) keeps the
 * message in UCS-2. It never takes more than two segments: past that, the
 * sentence is shortened, never the link.
 */

export const MAX_SEGMENTS = 2

export interface SmsFacts {
  slug: string
  language: string
  brand: string
  order_number: string
  /** The tracking page's address; none without SHIPLOG_PUBLIC_URL. */
  link: string | null
}

export interface RenderedSms {
  body: string
  encoding: 'GSM-7' | 'UCS-2'
  segments: number
}

const gsm = new Map<string, boolean>()
const isGsm = (char: string) => {
  let known = gsm.get(char)
  if (known === undefined) {
    known = new SegmentedMessage(char, 'auto').getEncodingName() === 'GSM-7'
    gsm.set(char, known)
  }
  return known
}
// A CommonJS module whose map is its `default` export: Node hands the whole exports object to an ES import.
const smartMap = ((SmartEncoding as { default?: unknown }).default ?? SmartEncoding) as Record<
  string,
  string | undefined
>

/** The text in GSM-7 characters, or undefined when a character has no GSM form. */
function inGsm(text: string): string | undefined {
  let out = ''
  for (const char of text) {
    if (isGsm(char)) {
      out += char
      continue
    }
    const twin = smartMap[char] ?? char.normalize('NFD').replace(/\p{M}/gu, '')
    if (![...twin].every(isGsm)) return undefined
    out += twin
  }
  return out
}

const measure = (body: string) => {
  const message = new SegmentedMessage(body, 'auto')
  return { segments: message.segmentsCount, encoding: message.getEncodingName() as RenderedSms['encoding'] }
}

export function renderSms(facts: SmsFacts): RenderedSms {
  const catalogue = wordsOf(notificationLanguageOf(facts.language))
  const words = catalogue.sms
  const template = words[facts.slug]
  if (!template) throw new Error(`no SMS text for notification type ${facts.slug}`)
  // A no-break space (French typography) has no GSM-7 twin: a text message takes a plain one, and stays GSM-7.
  const encode = (text: string) => {
    const plain = text.replace(/[\u00a0\u202f]/g, ' ')
    return inGsm(plain) ?? plain
  }
  let sentence = encode(phrase(catalogue, template, facts))
  const link = facts.link ? ` ${encode(phrase(catalogue, words.track!, facts))}` : ''
  let body = `${sentence}${link}`
  // Shortened a word at a time, so the brand, the order number and the link stay whole where they can.
  while (measure(body).segments > MAX_SEGMENTS && sentence.length > 0) {
    const cut = sentence.lastIndexOf(' ', sentence.length - 4)
    sentence = cut > 0 ? `${sentence.slice(0, cut)}...` : sentence.slice(0, -4)
    body = `${sentence}${link}`
  }
  return { body, ...measure(body) }
}
