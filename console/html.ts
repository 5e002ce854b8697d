import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import Handlebars from 'handlebars'
import type { Delay, DelayOutcome, DelayReason, DelayStatus } from '../shared/domain/events/order-events.ts'
import type { TrackerChanges } from '../shared/domain/events/resources.ts'
import { wholeDaysBetween } from '../shared/domain/time.ts'
import { isCalendarDate } from '../shared/domain/delivery/calendar.ts'
import type { Estimation } from '../shared/domain/delivery/estimate.ts'
import type { NotificationChannel } from '../shared/domain/vocabulary/channels.ts'
import type { RenderedPage } from '../shared/infra/http/html-page.ts'

/*
 * The console's HTML, from the templates beside this file: Handlebars
 * escapes every value. Pages work without script; the one script (copying a
 * link) and the style sheet are served by shiplog, as the
 * Content-Security-Policy requires.
 */

const file = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8')

/** An asset served with a long cache: its address changes with its content. */
const asset = (name: string, contentType: string) => {
  const body = file(`./assets/${name}`)
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`
  return { body, etag, contentType, path: `/console/assets/${name}?v=${etag.slice(1, 9)}` }
}
export const assets = {
  'console.css': asset('console.css', 'text/css; charset=utf-8'),
  'console.js': asset('console.js', 'text/javascript; charset=utf-8'),
} as const

const STATUS_WORDS: Record<string, string> = {
  pending: 'Pending',
  info_received: 'Info received',
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  failed_attempt: 'Failed attempt',
  available_for_pickup: 'Available for pickup',
  exception: 'Exception',
  delivered: 'Delivered',
  returned: 'Returned',
  expired: 'Expired',
}
/** Each status's tone: grey, blue (moving), amber (the customer must act), green, red. */
const STATUS_TONE: Record<string, string> = {
  pending: 'grey',
  info_received: 'grey',
  expired: 'grey',
  in_transit: 'blue',
  out_for_delivery: 'blue',
  failed_attempt: 'amber',
  available_for_pickup: 'amber',
  delivered: 'green',
  exception: 'red',
  returned: 'red',
}
const DELAY_WORDS: Record<DelayStatus, string> = { late: 'Late', stalled: 'Stalled', at_risk: 'At risk' }
const REASON_WORDS: Record<DelayReason, string> = {
  promise_passed: 'its promised day has passed',
  no_scan: 'no carrier scan for too long',
  no_first_scan: 'no first scan since it was created',
  behind_lane: 'behind what its lane’s on-time parcels had reached',
}

/** What was done about a delay, as the console says it. */
export const outcomeWords: Record<DelayOutcome, string> = {
  contacted: 'Customer contacted',
  reshipped: 'Reshipped',
  refunded: 'Refunded',
  claim: 'Claim filed',
}

export const statusWords = STATUS_WORDS
/** A delay's reason in a word or two, as a filter offers it. */
export const reasonNames: Record<DelayReason, string> = {
  promise_passed: 'Promise passed',
  no_scan: 'No scan for too long',
  no_first_scan: 'No first scan',
  behind_lane: 'Behind its lane',
}

/**
 * The rule that flagged a delay and its threshold, for "Why flagged?": the
 * stall threshold is the account's, unless the parcel's lane has taught a
 * longer quiet spell.
 */
export function whyFlagged(delay: Delay, stallDays: number) {
  const rule: Record<DelayReason, string> = {
    promise_passed: 'Late: the day promised for it has ended where it is going, and it is not delivered.',
    no_scan: `Stalled: no carrier scan for more than ${stallDays} business days (the account’s threshold), or longer than parcels of its lane usually go quiet.`,
    no_first_scan: `Stalled: no first carrier scan ${stallDays} business days after it was created (the account’s threshold).`,
    behind_lane:
      'At risk: it stands where most parcels of its lane that arrived late stood at this point of their journey.',
  }
  const revised = delay.expected_delivery_date ? ` Revised estimate: ${delay.expected_delivery_date}.` : ''
  return `${rule[delay.reason] ?? delay.reason}${revised}`
}
export const delayWords = DELAY_WORDS

/** "today" or "3 d ago", for a time in Unix seconds. */
export const daysAgo = (seconds: number, now: number) => {
  const days = wholeDaysBetween(seconds, now)
  return days === 0 ? 'today' : `${days} d ago`
}

const CHANNEL_WORDS: Record<string, string> = { email: 'E-mail', sms: 'SMS' }
/** "by e-mail", "by SMS": how a message goes, in a sentence. */
export const byChannel: Record<NotificationChannel, string> = { email: 'by e-mail', sms: 'by SMS' }
/** Where a message to a customer stands, as its payload's status says it. */
const SENDING_WORDS: Record<string, string> = {
  built: 'waiting to be sent',
  dispatched: 'sent',
  delivered: 'delivered',
  undelivered: 'not delivered',
  failed: 'failed',
}

/** "E-mail: sent", "SMS: failed (…)": a notification's message on one channel and what became of it. */
export const sendingWords = (payload: { type: string; status: string; error: string | null }) =>
  `${CHANNEL_WORDS[payload.type] ?? payload.type}: ${SENDING_WORDS[payload.status] ?? payload.status}${
    payload.status === 'failed' && payload.error ? ` (${payload.error})` : ''
  }`

/** How the console writes times: detail pages, days, days in lists, lists, ranges of days. */
const STYLES = {
  dateTime: { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' },
  day: { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' },
  shortDay: { day: 'numeric', month: 'short', year: 'numeric' },
  short: { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' },
  dayMonth: { day: 'numeric', month: 'short' },
} satisfies Record<string, Intl.DateTimeFormatOptions>
// Making a formatter costs far more than using one: one a style and zone, made once.
const formatters = new Map<string, Intl.DateTimeFormat>()
const formatIn = (zone: string, style: keyof typeof STYLES) => {
  const key = `${style}|${zone}`
  let format = formatters.get(key)
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { ...STYLES[style], timeZone: zone })
    formatters.set(key, format)
  }
  return format
}
/** The account's time zone, which every signed-in page's frame names ("Times in Europe/Paris"). */
const zoneOf = (options: Handlebars.HelperOptions | undefined) =>
  (options?.data?.root?.frame as Frame | undefined)?.zone ?? 'UTC'

type ExpectedKind = NonNullable<TrackerChanges['displayable_expected_delivery_kind']>
const calendarDay = (date: string) => Date.parse(`${date}T00:00:00Z`)
const EXPECTED_SOURCES: Record<ExpectedKind, string> = {
  merchant: 'the shop’s date',
  carrier: 'the carrier’s estimate',
  promise: 'shiplog’s promise',
}
/**
 * Where a parcel's expected date comes from, in words: the shop, the
 * carrier, or shiplog's promise and what it rests on today ("learned:
 * usually 14–15 Mar, from 312 similar parcels").
 */
export function expectedSource(kind: ExpectedKind, estimate: Estimation | undefined) {
  if (kind !== 'promise' || !estimate) return EXPECTED_SOURCES[kind]
  if (estimate.basis === 'configured') return 'promised from the service’s transit days'
  // Intl puts thin spaces around the dash: "2–3 Dec" within a month, "30 Mar – 2 Apr" across two.
  const usually = formatIn('UTC', 'dayMonth')
    .formatRange(calendarDay(estimate.delivery_date), calendarDay(estimate.safe_delivery_date))
    .replace(/\s–\s/, ' – ')
    .replace(/(\d) – (\d)/, '$1–$2')
  return `learned: usually ${usually}, from ${estimate.sample_size} similar parcels`
}

const pages = Handlebars.create()
pages.registerHelper('statusWord', (code: string) => STATUS_WORDS[code] ?? code)
pages.registerHelper('tone', (code: string) => STATUS_TONE[code] ?? 'grey')
pages.registerHelper('delayWord', (status: DelayStatus) => DELAY_WORDS[status] ?? status)
pages.registerHelper('reason', (reason: DelayReason) => REASON_WORDS[reason] ?? reason)
/** "Tue 12 Mar 2026, 14:32" for Unix seconds, in the account's time zone, on detail pages. */
pages.registerHelper('time', (seconds: number | null | undefined, options: Handlebars.HelperOptions) =>
  typeof seconds === 'number' ? formatIn(zoneOf(options), 'dateTime').format(seconds * 1000) : '–',
)
/**
 * A day as a style writes it: a calendar day (YYYY-MM-DD, as promised dates
 * are) as it is, Unix seconds as the account's day; else what was given.
 */
const dayIn = (style: 'day' | 'shortDay') => (date: unknown, options: Handlebars.HelperOptions) =>
  typeof date === 'number'
    ? formatIn(zoneOf(options), style).format(date * 1000)
    : typeof date === 'string' && isCalendarDate(date)
      ? formatIn('UTC', style).format(calendarDay(date))
      : (date ?? '–')
/** "Sun, 29 Nov 2026", on detail pages. */
pages.registerHelper('longDay', dayIn('day'))
/** "29 Nov 2026", in lists. */
pages.registerHelper('shortDay', dayIn('shortDay'))
/** "today", "3 d ago": how long ago something happened, in whole days. */
pages.registerHelper('ago', (seconds: number, now: number) => daysAgo(seconds, now))
/** "12 Mar 14:32" in a time zone, in lists and sentences. */
export const shortTime = (seconds: number, zone: string) => formatIn(zone, 'short').format(seconds * 1000)
pages.registerHelper('short', (seconds: number | null | undefined, options: Handlebars.HelperOptions) =>
  typeof seconds === 'number' ? shortTime(seconds, zoneOf(options)) : '–',
)
pages.registerHelper('iso', (seconds: number | null | undefined) =>
  typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : '',
)
/** Whole days from a time to now, for a delay's age ("3 d"). */
pages.registerHelper('age', (seconds: number, now: number) => `${wholeDaysBetween(seconds, now)} d`)
pages.registerHelper('outcomeWord', (outcome: DelayOutcome) => outcomeWords[outcome] ?? outcome)
pages.registerPartial('handle-delay', file('./templates/handle-delay.html.hbs'))
pages.registerPartial('handled', file('./templates/handled.html.hbs'))
pages.registerHelper('eq', (a: unknown, b: unknown) => a === b)
pages.registerPartial('layout', file('./templates/layout.html.hbs'))
pages.registerPartial('badges', file('./templates/badges.html.hbs'))

pages.registerPartial('settings-nav', file('./templates/settings-nav.html.hbs'))
pages.registerPartial('field-error', file('./templates/field-error.html.hbs'))
pages.registerPartial('figure', file('./templates/figure.html.hbs'))
/** A field's error, if the form was refused for it. */
pages.registerHelper(
  'fieldError',
  (errors: { fields?: Record<string, string> } | undefined, name: string) => errors?.fields?.[name],
)
/** A count with its thousands grouped: "10,000". */
pages.registerHelper('thousands', (n: number) => n.toLocaleString('en-GB'))
pages.registerHelper('percent', (rate: number | null | undefined) =>
  typeof rate === 'number' ? `${(rate * 100).toFixed(1)} %` : '–',
)

/**
 * The helpers the templates may call: a bare `{{name}}` runs a helper of
 * that name before it reads a field of it (tests/unit/console-templates.test.ts).
 */
export const helperNames = () => Object.keys(pages.helpers)

const names = [
  'login',
  'overview',
  'parcels',
  'order',
  'delays',
  'preview',
  'error',
  'analytics',
  'account',
  'tracking-page-settings',
  'notifications',
  'sample',
  'carriers',
  'team',
  'webhooks',
  'webhook',
  'connections',
] as const
const templates = Object.fromEntries(
  names.map((name) => [name, pages.compile(file(`./templates/${name}.html.hbs`), { strict: false })]),
) as Record<(typeof names)[number], HandlebarsTemplateDelegate>

/** Only shiplog's own style sheet and script, no inline code, forms to itself, never framed. */
const POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self'",
  // The tracking page's preview, a page of this site.
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** What every signed-in page's frame shows: who is signed in, the search, the navigation, a message. */
export interface Frame {
  user?: { email: string; role: string }
  csrf?: string
  q?: string
  /** The navigation entry of the page. */
  current?: 'overview' | 'parcels' | 'delays' | 'analytics' | 'settings'
  openDelays?: number
  flash?: string
  /** The account's IANA time zone, which the page's times and days are in. */
  zone?: string
}

export function renderConsolePage(
  name: keyof typeof templates,
  title: string,
  frame: Frame,
  data: Record<string, unknown>,
): RenderedPage {
  const html = templates[name]({
    ...data,
    title,
    frame,
    stylesheet: assets['console.css'].path,
    script: assets['console.js'].path,
  })
  return { html, policy: POLICY }
}
