import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'

/* The docs are references: short enough to read, and about the service, not about how it was written. */

const words = (file: string) => readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).length

t.test('the README and the performance page stay one read each', async (t) => {
  t.ok(words('README.md') <= 2500, `README.md: ${words('README.md')} words of 2,500 at most`)
  t.ok(words('docs/performance.md') <= 1200, `docs/performance.md: ${words('docs/performance.md')} of 1,200`)
})

t.test('no doc reads like a diary of measurements or work', async (t) => {
  const diary =
    /this hour|one hour|on another host|slower host|faster host|alternated|whole-document build|\bsessions?\b/i
  const files = [
    'README.md',
    'CHANGELOG.md',
    ...readdirSync('docs')
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ]
  const found = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        diary.test(line) && !/user session|session (cookie|token)/i.test(line) ? [`${file}:${i + 1}`] : [],
      ),
  )
  t.same(found, [])
})

t.test('the CHANGELOG names the version package.json gives, with a date', async (t) => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
  t.match(
    readFileSync('CHANGELOG.md', 'utf8'),
    new RegExp(`^## (Unreleased|${version.replaceAll('.', '\\.')} — \\d{4}-\\d{2}-\\d{2})$`, 'm'),
  )
})
