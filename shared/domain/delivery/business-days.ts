import { addDays, type CalendarDate, isPublicHoliday, weekdayOf } from './calendar.ts'
import type { Weekday } from '../events/pickup-point-events.ts'
import { transitKey, transitOf } from './sums.ts'

/*
 * Transit times in business days: the carrier service's delivery days, less
 * the holidays of the lane's countries.
 */

/** A carrier service's calendar: the days it delivers, and the holidays of the lane's countries. */
export interface DeliveryCalendar {
  delivery_days: readonly Weekday[]
}

export const WORKING_WEEK: DeliveryCalendar = {
  delivery_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
}

const spansByCalendar = new Map<string, Map<string, number>>()

/**
 * The business days of transits (`<delivered>|<shipped>` keys) on one
 * calendar and lane, each counted once: a year's analytics meet the same few
 * thousand spans hundreds of thousands of times.
 */
export function businessDaysOf(calendar: DeliveryCalendar, countries: readonly (string | null)[]) {
  const calendarKey = `${calendar.delivery_days.join(',')}|${countries.join(',')}`
  let spans = spansByCalendar.get(calendarKey)
  if (!spans) {
    if (spansByCalendar.size > 1000) spansByCalendar.clear()
    spans = new Map()
    spansByCalendar.set(calendarKey, spans)
  }
  const known = spans
  return (transit: string) => {
    let days = known.get(transit)
    if (days === undefined) {
      const [delivered, shipped] = transitOf(transit)
      days = countBusinessDays(calendar, countries, shipped, delivered)
      if (known.size > 100_000) known.clear()
      known.set(transit, days)
    }
    return days
  }
}

/** Business days from shipping to delivery: the carrier's delivery days after the ship day, holidays aside. */
export const businessDaysBetween = (
  calendar: DeliveryCalendar,
  countries: readonly (string | null)[],
  shipped: CalendarDate,
  delivered: CalendarDate,
) => businessDaysOf(calendar, countries)(transitKey(delivered, shipped))

function countBusinessDays(
  calendar: DeliveryCalendar,
  countries: readonly (string | null)[],
  shipped: CalendarDate,
  delivered: CalendarDate,
): number {
  let days = 0
  for (let d = addDays(shipped, 1), i = 0; d <= delivered && i < 400; d = addDays(d, 1), i++) {
    if (!calendar.delivery_days.includes(weekdayOf(d))) continue
    if (countries.some((c) => c !== null && isPublicHoliday(c, d))) continue
    days++
  }
  return days
}
