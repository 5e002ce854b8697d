import t from 'tap'
import { jsonDepthExceeds as exceedsOnBytes } from '../../shared/infra/http/body-limits.ts'

/** The scan of a text's UTF-8 bytes, as a request body arrives. */
const jsonDepthExceeds = (text: string, max: number) => exceedsOnBytes(Buffer.from(text), max)

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

t.test('a text nesting deeper than the limit exceeds it; one at the limit does not', async (t) => {
  t.notOk(jsonDepthExceeds(nested(32), 32))
  t.ok(jsonDepthExceeds(nested(33), 32))
  t.ok(jsonDepthExceeds(`{"a":${'{"b":'.repeat(32)}1${'}'.repeat(33)}`, 32), 'objects count as arrays do')
  t.notOk(jsonDepthExceeds('[1,[2],[3],[4]]', 2), 'siblings do not add up')
})

t.test('brackets inside strings do not count, escaped quotes included', async (t) => {
  const inString = JSON.stringify({ note: '[[[[{{{{'.repeat(10) })
  t.notOk(jsonDepthExceeds(inString, 2))
  const escaped = JSON.stringify({ note: 'say "[[[[[[" and \\ then [[[[', more: ['"]]]]"'] })
  t.notOk(jsonDepthExceeds(escaped, 2))
  t.ok(jsonDepthExceeds(`["a\\"b", ${nested(3)}]`, 3), 'the string ends at its closing quote, not at an escaped one')
})

t.test('a text that is not JSON is scanned without a hang', async (t) => {
  t.notOk(jsonDepthExceeds(`"${'\\'.repeat(100_001)}`, 32), 'an unterminated string of escapes')
  t.notOk(
    jsonDepthExceeds(`"unterminated ${nested(40)}`, 32),
    'a string left open takes the rest (the parse refuses it)',
  )
})

t.test('characters of several bytes are passed over, in strings and out', async (t) => {
  t.notOk(jsonDepthExceeds(JSON.stringify({ note: 'Zoë says [[[ 日本 ]]] «[»', city: 'Kraków' }), 1))
  t.ok(jsonDepthExceeds(`{"é":${nested(3)}}`, 3))
})
