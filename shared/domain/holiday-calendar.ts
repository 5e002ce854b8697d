import { createRequire } from 'node:module'
import type Holidays from 'date-holidays'

/*
 * The holiday calendar of a country (and state), from date-holidays, loaded
 * on first use: its rules for every country take about a tenth of a second
 * to load, which every process and thread importing the domain would
 * otherwise pay at start, most of them never asking for a calendar (a
 * rebuild of the orders, the CLI's commands). Synchronous, as its callers are.
 */
let calendarClass: typeof Holidays | undefined

export function holidayCalendar(country: string, state = ''): Holidays {
  calendarClass ??= createRequire(import.meta.url)('date-holidays') as typeof Holidays
  return new calendarClass(country, state)
}
