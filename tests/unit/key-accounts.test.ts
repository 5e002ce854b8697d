import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { hashKey } from '../../shared/infra/accounts/keys.ts'
import { keyAccounts } from '../../shared/infra/http/auth.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'

/** A read store holding one account, its keys replaceable, counting the lookups made of it. */
function accountsStore() {
  const keys = { private_key_hash: hashKey('sk_one'), public_key_hash: hashKey('pk_one') }
  const account = () => ({ id: 7, name: 'Acme', settings: { language_code: 'en' }, ...keys }) as unknown as AccountDoc
  const store = {
    lookups: 0,
    rotate: () => Object.assign(keys, { private_key_hash: hashKey('sk_two'), public_key_hash: hashKey('pk_two') }),
    async lookup(_collection: string, field: 'private_key_hash' | 'public_key_hash', value: string) {
      store.lookups++
      const doc = account()
      return doc[field] === value ? { accountId: 7, id: 7, key: 'account-7', revision: 0, doc } : undefined
    },
  }
  return store
}

t.test('the requests naming a key in one turn share one lookup, made after they all arrived', async (t) => {
  const store = accountsStore()
  const accountOf = keyAccounts(store as unknown as ReadStore)
  const asked = [accountOf(hashKey('sk_one')), accountOf(hashKey('sk_one')), accountOf(hashKey('sk_one'))]
  t.equal(store.lookups, 0, 'nothing is looked up before the turn ends')
  const found = await Promise.all(asked)
  t.equal(store.lookups, 1)
  t.match(found, [{ kind: 'private', account: { id: 7 } }, {}, {}])
  t.equal(found[0], found[2], 'they share what was found')
  const account = found[0]!.account as unknown as { settings: { language_code: string } }
  t.ok(Object.isFrozen(account) && Object.isFrozen(account.settings), 'frozen, to the settings inside')
  t.throws(() => {
    account.settings.language_code = 'fr'
  }, TypeError)
})

t.test('a request arriving once a lookup has started waits for one of its own: a rotated key is refused', async (t) => {
  const store = accountsStore()
  const accountOf = keyAccounts(store as unknown as ReadStore)
  t.match(await accountOf(hashKey('sk_one')), { kind: 'private' })
  store.rotate()
  t.equal(await accountOf(hashKey('sk_one')), undefined, 'the old key is no one’s')
  t.match(await accountOf(hashKey('sk_two')), { kind: 'private', account: { id: 7 } })
  t.equal(store.lookups, 1 + 2 + 1, 'a key no one has is looked up as a private key, then as a public one')
})

t.test('keys are told apart: the public key, an unknown key, each in the same turn', async (t) => {
  const store = accountsStore()
  const accountOf = keyAccounts(store as unknown as ReadStore)
  const [asPrivate, asPublic, unknown] = await Promise.all([
    accountOf(hashKey('sk_one')),
    accountOf(hashKey('pk_one')),
    accountOf(hashKey('sk_nobody')),
  ])
  t.match(asPrivate, { kind: 'private' })
  t.match(asPublic, { kind: 'public', account: { id: 7 } })
  t.equal(unknown, undefined)
  await nextTurn()
  t.equal(store.lookups, 1 + 2 + 2, 'one lookup of each key, the private hash first')
})
