/** Datetime values as the API reads and writes them: Unix seconds. */

export const toUnixSeconds = (d: Date | number): number => Math.floor((typeof d === 'number' ? d : d.getTime()) / 1000)

const DAY_SECONDS = 86_400
/** The UTC day of an instant in Unix seconds, `YYYY-MM-DD`: the day carriers' budgets and a parcel's polls count in. */
export const utcDayOf = (seconds: number) => new Date(Math.floor(seconds) * 1000).toISOString().slice(0, 10)
/** Whole days from one instant to a later one, in Unix seconds (0 when it is not later). */
export const wholeDaysBetween = (from: number, to: number) => Math.max(0, Math.floor((to - from) / DAY_SECONDS))
/** The next UTC midnight after an instant, in Unix seconds. */
export const nextUtcDay = (seconds: number) => (Math.floor(seconds / DAY_SECONDS) + 1) * DAY_SECONDS

/** Whether Intl knows a time zone by this name (IANA's, in any case). */
export function isTimeZone(zone: string) {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/**
 * Reads a datetime input: Unix seconds (integer or numeric string) or an ISO
 * 8601 string, from 1970 to the year 9999. Undefined when it is neither.
 */
export function parseDateTime(value: number | string): number | undefined {
  const seconds = typeof value === 'number' ? value : readDateTime(value.trim())
  return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 && seconds <= LAST_SECOND
    ? Math.floor(seconds)
    : undefined
}

/** 9999-12-31T23:59:59Z: past it a time has no ISO 8601 form. */
const LAST_SECOND = 253_402_300_799

function readDateTime(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text)
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms / 1000
}
