import t from 'tap'
import { holidayCalendar } from '../../shared/domain/holiday-calendar.ts'

t.test('a country and state get their calendar, loaded on first use', async (t) => {
  t.equal(holidayCalendar('FR').getTimezones()[0], 'Europe/Paris')
  t.equal(holidayCalendar('US', 'CA').getTimezones()[0], 'America/Los_Angeles')
  const newYear = holidayCalendar('FR')
    .getHolidays(2026)
    .find((h) => h.date.startsWith('2026-01-01'))
  t.equal(newYear?.type, 'public')
})
