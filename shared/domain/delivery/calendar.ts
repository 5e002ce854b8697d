import { holidayCalendar } from '../holiday-calendar.ts'
import { weekdays, type Weekday } from '../events/pickup-point-events.ts'
import { memoize } from '../memo.ts'

/** A calendar date, `YYYY-MM-DD`; arithmetic on it never involves a time zone. */
export type CalendarDate = string

const DAY_MS = 86_400_000
const toDate = (d: CalendarDate) => new Date(`${d}T00:00:00Z`)

export const addDays = (d: CalendarDate, n: number): CalendarDate =>
  new Date(toDate(d).getTime() + n * DAY_MS).toISOString().slice(0, 10)

/** Monday-first like the spec's CSV, from JavaScript's Sunday-first getUTCDay. */
export const weekdayOf = (d: CalendarDate): Weekday => weekdays[(toDate(d).getUTCDay() + 6) % 7]!

/** A real date `YYYY-MM-DD`: `2026-13-45` and `0000-00-00` are not. */
export const isCalendarDate = (s: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false
  const time = toDate(s).getTime()
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === s
}

const formatters = new Map<string, Intl.DateTimeFormat>()
function partsIn(timeZone: string, instant: Date) {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
    formatters.set(timeZone, f)
  }
  const p = Object.fromEntries(f.formatToParts(instant).map((x) => [x.type, x.value]))
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}`, seconds: Number(p.second) }
}

/*
 * Intl's formatToParts is the costliest step of an estimation (four calls a
 * carrier service): the answers are kept, the local time of an instant per
 * zone and second, the instant of a local time per zone, date and time.
 */
const localTimes = memoize((key: string) => {
  const [zone, seconds] = key.split('|') as [string, string]
  return partsIn(zone, new Date(Number(seconds) * 1000))
}, 1000)
const instants = memoize((key: string) => {
  const [zone, date, time] = key.split('|') as [string, string, string]
  return instantIn(zone, date, time).getTime()
}, 10_000)

/** The local date and `HH:MM` time of an instant in a time zone. */
export const localDateTime = (timeZone: string, instant: Date) =>
  localTimes(`${timeZone}|${Math.floor(instant.getTime() / 1000)}`)

/** The instant at which it is `time` on `date` in `timeZone` (the later one in a DST fold). */
export const instantOf = (timeZone: string, date: CalendarDate, time: string): Date =>
  new Date(instants(`${timeZone}|${date}|${time}`))

/** The local date of an instant in Unix seconds, in a time zone. */
export const localDayOf = (timeZone: string, seconds: number): CalendarDate =>
  localDateTime(timeZone, new Date(seconds * 1000)).date

/** Unix seconds at the local midnight a date begins with, in a time zone. */
export const localMidnight = (timeZone: string, date: CalendarDate) =>
  Math.floor(instantOf(timeZone, date, '00:00').getTime() / 1000)

function instantIn(timeZone: string, date: CalendarDate, time: string): Date {
  const wall = Date.parse(`${date}T${time}:00Z`)
  let guess = wall
  for (let i = 0; i < 3; i++) {
    const p = partsIn(timeZone, new Date(guess))
    const shownAsUtc = Date.parse(`${p.date}T${p.time}:${String(p.seconds).padStart(2, '0')}Z`)
    guess += wall - shownAsUtc
  }
  return new Date(guess)
}

const publicHolidays = new Map<string, Set<CalendarDate>>()

/** Public holidays of a country (ISO 3166-1 alpha-2) from date-holidays, a maintained library. */
export function isPublicHoliday(countryCode: string, d: CalendarDate): boolean {
  const year = Number(d.slice(0, 4))
  const key = `${countryCode}:${year}`
  let set = publicHolidays.get(key)
  if (!set) {
    const holidays = holidayCalendar(countryCode)
    set = new Set((holidays.getHolidays(year) || []).filter((h) => h.type === 'public').map((h) => h.date.slice(0, 10)))
    publicHolidays.set(key, set)
  }
  return set.has(d)
}
