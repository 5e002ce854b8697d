import { z } from 'zod'
import { isTimeZone, parseDateTime } from './time.ts'
import { countryName } from './contacts/countries.ts'

/*
 * The kinds of value the API accepts in several places (JSON bodies, query
 * strings, CSV cells): one rule and one message each, so every route words
 * the same mistake the same way.
 */

export const COUNTRY_CODE_MESSAGE = 'must be a 2-letter ISO 3166-1 country code'
export const TIME_OF_DAY_MESSAGE = 'must be a time HH:MM'
export const DATETIME_MESSAGE = 'must be Unix seconds or an ISO 8601 datetime'

export const LANGUAGE_CODE_MESSAGE = 'must be an ISO 639-1 language code such as fr or fr-CA'
/** An ISO 639-1 language, optionally with a region: `fr`, `fr-CA`. */
export const LANGUAGE_CODE = /^[a-z]{2}(-[A-Z]{2})?$/
export const languageCode = z.string().regex(LANGUAGE_CODE, LANGUAGE_CODE_MESSAGE)

/** A time of day, `HH:MM` on the 24-hour clock. */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/

/** An ISO 3166-1 alpha-2 country code in any case, read upper-case. */
export const countryCode = z
  .string()
  .transform((v) => v.toUpperCase())
  .refine((v) => countryName(v) !== null, COUNTRY_CODE_MESSAGE)

export const timeOfDay = z.string().regex(TIME_OF_DAY, TIME_OF_DAY_MESSAGE)

export const TIME_ZONE_MESSAGE = 'must be an IANA time zone such as Europe/Paris'
/** An IANA time zone in any case (`europe/paris`), read as its canonical name (`Europe/Paris`). */
export const timeZone = z
  .string()
  .refine(isTimeZone, TIME_ZONE_MESSAGE)
  .transform((zone) => new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone)

/**
 * Marks an issue whose value cannot be read as its kind at all (a date that
 * is no date): reported, as a wrong type is, under `Wrong data type for keys`.
 */
export const UNREADABLE = { unreadable: true } as const

const toSeconds = (value: number | string, ctx: z.RefinementCtx) => {
  const seconds = parseDateTime(value)
  if (seconds !== undefined) return seconds
  ctx.addIssue({ code: 'custom', message: DATETIME_MESSAGE, params: UNREADABLE })
  return z.NEVER
}

/** Unix seconds or ISO 8601, read into Unix seconds. */
export const dateTime = z.union([z.number(), z.string()]).transform(toSeconds)

/** The same in a query string, where every value is text. */
export const dateTimeText = z.string().transform(toSeconds)

/*
 * What one resource may hold, so that no write can make a read unbounded
 * (documented in the README and the OpenAPI document).
 */
export const LIMITS = {
  /** Identifiers: order and tracking numbers, merchant ids, codes. */
  identifier: 255,
  /** Names, e-mail addresses, phone numbers, cities. */
  shortText: 255,
  /** Street lines, messages. */
  longText: 2000,
  /** `custom_variables`, serialized as JSON, in characters. */
  customVariablesLength: 16_384,
  /** `custom_variables`' nesting: objects and arrays within each other. */
  customVariablesDepth: 16,
  /** `custom_variables`' keys, at every level together. */
  customVariablesKeys: 512,
  /** Trackers (with their fulfillments) of one order. */
  trackersPerOrder: 500,
  /** A CSV cell. */
  csvCell: 1000,
} as const

export const tooLong = (max: number) => `must be at most ${max} characters`

/** A string of at most `max` characters. */
export const boundedText = (max: number) => z.string().max(max, tooLong(max))

/**
 * How deep a JSON value nests and how many keys it holds, walked without
 * recursion and given up past `maxDepth`: a value nested thousands deep is
 * measured without exhausting the stack.
 */
export function jsonShape(value: unknown, maxDepth: number): { depth: number; keys: number } {
  let depth = 0
  let keys = 0
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [at, level] = stack.pop()!
    if (at === null || typeof at !== 'object') continue
    depth = Math.max(depth, level)
    if (depth > maxDepth) return { depth, keys }
    const children = Array.isArray(at) ? at : Object.values(at)
    if (!Array.isArray(at)) keys += children.length
    for (const child of children) stack.push([child, level + 1])
  }
  return { depth, keys }
}

/**
 * `custom_variables`: an object nested at most 16 deep, with at most 512 keys,
 * whose JSON is at most 16,384 characters: every store, MongoDB's 100 levels
 * included, keeps it, and comparing two of them stays cheap.
 */
export const customVariables = z
  .record(z.string(), z.unknown())
  .check((ctx) => {
    // The value is walked once for both bounds; past either, its length is not measured.
    const { depth, keys } = jsonShape(ctx.value, LIMITS.customVariablesDepth)
    const message =
      depth > LIMITS.customVariablesDepth
        ? `must nest at most ${LIMITS.customVariablesDepth} levels deep`
        : keys > LIMITS.customVariablesKeys
          ? `must hold at most ${LIMITS.customVariablesKeys} keys`
          : undefined
    if (message) ctx.issues.push({ code: 'custom', message, input: ctx.value, continue: false })
  })
  .refine(
    (v) => JSON.stringify(v).length <= LIMITS.customVariablesLength,
    `must be at most ${LIMITS.customVariablesLength} characters once serialized as JSON`,
  )

/** One e-mail address: a list of them, or a header folded into one, would reach several people. */
export const emailAddress = z
  .string()
  .max(LIMITS.shortText, tooLong(LIMITS.shortText))
  .regex(/^[^\s@,;<>"()[\]\\]+@[^\s@,;<>"()[\]\\]+\.[^\s@,;<>"()[\]\\]+$/, 'must be one e-mail address')
