import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { helperNames } from '../../console/html.ts'

/*
 * The console's templates never read a field that a helper shadows: in
 * Handlebars a bare {{day}} calls the helper `day`, not the field, and the
 * carriers form once sent its weekdays as a date helper's dash.
 */

const folder = new URL('../../console/templates/', import.meta.url)

t.test('no bare {{field}} in a template is the name of a helper', async (t) => {
  const helpers = new Set(helperNames())
  t.ok(helpers.has('short') && helpers.has('longDay'), 'the helpers are read')
  const shadowed = readdirSync(folder)
    .filter((name) => name.endsWith('.hbs'))
    .flatMap((name) =>
      [...readFileSync(new URL(name, folder), 'utf8').matchAll(/\{\{\s*([A-Za-z_][\w]*)\s*\}\}/g)]
        .map(([, field]) => field!)
        .filter((field) => helpers.has(field))
        .map((field) => `${name}: {{${field}}}`),
    )
  t.same(shadowed, [])
})
