import fc from 'fast-check'
import t from 'tap'
import { createSecretBox } from '../../shared/infra/secrets.ts'
import { trackingTokens } from '../../shared/infra/tracking-tokens.ts'

const tokens = trackingTokens(createSecretBox(Buffer.alloc(32, 7)))
const target = { accountId: 245944286863360, orderId: 245944300000001, linkId: 0 }

t.test('a token opens to the order it was made for, and is the same every time', async (t) => {
  const token = tokens.tokenOf(target)
  t.match(token, /^[A-Za-z0-9_-]{54}$/, '40 bytes: a 128-bit tag and the encrypted ids')
  t.same(tokens.open(token), target)
  t.equal(tokens.tokenOf(target), token)
  for (const id of [target.accountId, target.orderId]) t.notOk(token.includes(String(id)), 'no id in clear')
  t.not(tokens.tokenOf({ ...target, linkId: 1 }), token, 'a new link, a new token')
  t.not(tokens.tokenOf({ ...target, orderId: target.orderId + 1 }), token)
})

t.test('any change to a token, or another key, opens nothing', async (t) => {
  const token = tokens.tokenOf(target)
  const bytes = Buffer.from(token, 'base64url')
  for (let i = 0; i < bytes.length; i++) {
    const changed = Buffer.from(bytes)
    changed[i] = changed[i]! ^ 1
    t.equal(tokens.open(changed.toString('base64url')), undefined, `byte ${i} changed`)
  }
  const otherKey = trackingTokens(createSecretBox(Buffer.alloc(32, 8)))
  t.equal(otherKey.open(token), undefined)
  for (const text of ['', 'x', `${token}=`, token.slice(1), `${token}A`, '../../etc/passwd'])
    t.equal(tokens.open(text), undefined, JSON.stringify(text))
})

t.test('random tokens open nothing', async (t) => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 40, maxLength: 40 }), (bytes) => {
      return tokens.open(Buffer.from(bytes).toString('base64url')) === undefined
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 random 40-byte tokens: none opened')
})
