import { createRequire } from 'node:module'
import type Holidays from 'date-holidays'

/*
 * The holiday calendar of a country (and state), from date-holidays, loaded
 * on first use and synchronously, as its callers are: loading its rules for
 * every country is a large share of a process's start, and most processes and
 * threads that import the domain (a rebuild of the orders, the CLI's
 * commands) never ask for a calendar.
 */
let calendarClass: typeof Holidays | undefined

export function holidayCalendar(country: string, state = ''): Holidays {
  calendarClass ??= createRequire(import.meta.url)('date-holidays') as typeof Holidays
  return new calendarClass(country, state)
}
