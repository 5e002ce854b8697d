import { readFileSync } from 'node:fs'
import t from 'tap'
import { holidayCalendar } from '../../shared/domain/holiday-calendar.ts'
import { typescriptFiles } from '../support/sources.ts'

t.test('a country and state get their calendar, loaded on first use', async (t) => {
  t.equal(holidayCalendar('FR').getTimezones()[0], 'Europe/Paris')
  t.equal(holidayCalendar('US', 'CA').getTimezones()[0], 'America/Los_Angeles')
  const newYear = holidayCalendar('FR')
    .getHolidays(2026)
    .find((h) => h.date.startsWith('2026-01-01'))
  t.equal(newYear?.type, 'public')
})

/*
 * A module that imported date-holidays itself, not just its types, would make
 * every process and thread load its rules at start again, a rebuild's second
 * thread among them.
 */
t.test('date-holidays is imported for its types only; holiday-calendar.ts loads it', async (t) => {
  const eager = ['shared', 'projectors', 'commands', 'query-api', 'reactions', 'jobs', 'cli', 'server'].flatMap((dir) =>
    typescriptFiles(dir).filter((file) =>
      /^import (?!type )[^\n]*from 'date-holidays'/m.test(readFileSync(file, 'utf8')),
    ),
  )
  t.same(eager, [])
})
