import { holidayCalendar } from '../holiday-calendar.ts'
import { memoize } from '../memo.ts'

/**
 * The time zone people live by at an address: the first zone the holiday
 * calendar gives for its country and, where the country has several, its
 * state (`US`/`CA` is America/Los_Angeles). Undefined where it knows none.
 */
export const timeZoneAt = (countryCode: string | null, state: string | null = null): string | undefined => {
  if (!countryCode) return undefined
  return zoneOf(state ? `${countryCode.toUpperCase()}|${state.toUpperCase()}` : countryCode.toUpperCase())
}

const zoneOf = memoize((place: string): string | undefined => {
  const [country, state] = place.split('|') as [string, string | undefined]
  // A state the calendar does not know falls back to its country's zones.
  return holidayCalendar(country, state).getTimezones()[0]
}, 1000)
