import t from 'tap'
import { memoize } from '../../shared/domain/memo.ts'
import { isDialable, normalizePhone } from '../../shared/domain/contacts/phones.ts'

t.test('memoize keeps the last results and forgets the least recently used', async (t) => {
  let calls = 0
  const double = memoize((k: string) => {
    calls++
    return k + k
  }, 2)
  t.equal(double('a'), 'aa')
  t.equal(double('a'), 'aa')
  t.equal(calls, 1)
  double('b')
  double('c') // evicts a
  double('a')
  t.equal(calls, 4)
})

t.test('memoize remembers a result of undefined or null like any other', async (t) => {
  let calls = 0
  const nothing = memoize((k: string) => {
    calls++
    return k === 'none' ? undefined : null
  })
  for (const key of ['none', 'none', 'null', 'null']) nothing(key)
  t.equal(nothing('none'), undefined)
  t.equal(nothing('null'), null)
  t.equal(calls, 2)
})

t.test('memoize takes a result learned elsewhere as its own', async (t) => {
  let calls = 0
  const length = memoize((k: string) => {
    calls++
    return k.length
  })
  length.remember('abc', 3)
  t.equal(length('abc'), 3)
  t.equal(calls, 0, 'the remembered result is answered without calling the function')
})

t.test('phone numbers are read in the country given with them', async (t) => {
  t.equal(normalizePhone('06 12 34 56 78', 'FR'), '+33612345678')
  t.equal(normalizePhone('06 12 34 56 78', 'US'), '06 12 34 56 78', 'the same digits are not a US number')
  t.equal(normalizePhone('+1 415 555 2671'), '+14155552671')
})

t.test('a number read as valid is dialable; others are not', async (t) => {
  const number = normalizePhone('06 98 76 54 32', 'FR')
  t.equal(number, '+33698765432')
  t.ok(isDialable(number))
  t.notOk(isDialable(normalizePhone('06 12', 'FR')), 'too short to parse: kept as given, not dialable')
  t.notOk(isDialable('+33 6 98 76 54 32'), 'not in E.164 form')
})
