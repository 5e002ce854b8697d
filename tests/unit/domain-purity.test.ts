import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

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

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )

t.test('the domain imports nothing with I/O, nor the infrastructure', async (t) => {
  const offending: string[] = []
  for (const file of files(DOMAIN)) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)) {
      const fine = spec!.startsWith('.')
        ? !spec!.includes('infra/') && !spec!.includes('../../../')
        : allowedPackages.has(spec!)
      if (!fine) offending.push(`${file}: ${spec}`)
    }
  }
  t.same(offending, [])
})

t.test('the domain never reads the clock nor makes ids', async (t) => {
  const offending = files(DOMAIN).filter((file) =>
    /Date\.now\(|new Date\(\)|randomUUID|Math\.random|crypto/.test(readFileSync(file, 'utf8')),
  )
  t.same(offending, [])
})
