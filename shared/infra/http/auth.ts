import type { FastifyRequest } from 'fastify'
import type { AccountDoc } from '../accounts/account-doc.ts'
import { hashKey, keyFromAuthorization, keyId, sameHash, type KeyKind } from '../accounts/keys.ts'
import { ShiplogError } from '../../domain/errors.ts'
import { collections } from '../read-store/collections.ts'
import type { ReadStore } from '../read-store/port.ts'

/** Which key a route takes: the private key, either key, or none. */
export type AuthPolicy = 'private' | 'public-or-private' | 'none'

export interface Caller {
  account: AccountDoc
  keyKind: KeyKind
  keyId: string
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller
  }
  interface FastifyContextConfig {
    /** Defaults to 'private'. */
    auth?: AuthPolicy
  }
}

/** Whose a key is, as the read store holds the accounts: as the private key, the public one, or no one's. */
type KeyAccount = { kind: KeyKind; account: AccountDoc } | undefined

/**
 * The accounts of API keys, each key looked up once for all the requests
 * naming it that arrived in one turn of the event loop: a client sending
 * many requests at once costs one lookup a turn, not one each, and each
 * request's lookup still runs after it arrived. What a lookup finds is
 * frozen, as the requests that joined it share it.
 */
export function keyAccounts(store: ReadStore) {
  const { name } = collections.accounts
  const lookUp = async (hash: string): Promise<KeyAccount> => {
    const asPrivate = await store.lookup<AccountDoc>(name, 'private_key_hash', hash)
    if (asPrivate && sameHash(asPrivate.doc.private_key_hash, hash))
      return frozen({ kind: 'private', account: asPrivate.doc })
    const asPublic = await store.lookup<AccountDoc>(name, 'public_key_hash', hash)
    if (asPublic && sameHash(asPublic.doc.public_key_hash, hash))
      return frozen({ kind: 'public', account: asPublic.doc })
    return undefined
  }
  const waiting = new Map<string, Promise<KeyAccount>>()
  return (hash: string): Promise<KeyAccount> => {
    let found = waiting.get(hash)
    if (!found) {
      found = new Promise((resolve, reject) =>
        setImmediate(() => {
          // A request arriving from now on waits for a lookup of its own.
          waiting.delete(hash)
          lookUp(hash).then(resolve, reject)
        }),
      )
      waiting.set(hash, found)
    }
    return found
  }
}

const frozen = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner)
    Object.freeze(value)
  }
  return value
}

/** Finds the account of a request's key; 401 without a known key, 403 for a public key on a private route. */
export async function authenticate(
  request: FastifyRequest,
  accountOf: (hash: string) => Promise<KeyAccount>,
  policy: AuthPolicy,
): Promise<Caller | undefined> {
  if (policy === 'none') return undefined
  const key = keyFromAuthorization(request.headers.authorization)
  if (!key) throw new ShiplogError('SHIPLOG_ERR_UNAUTHORIZED', 'Missing API key in the Authorization header')
  const hash = hashKey(key)
  const found = await accountOf(hash)
  if (!found) throw new ShiplogError('SHIPLOG_ERR_UNAUTHORIZED', 'Unknown API key')
  if (found.kind === 'public' && policy !== 'public-or-private') {
    throw new ShiplogError('SHIPLOG_ERR_FORBIDDEN', 'The public key is not allowed on this route; use the private key')
  }
  return { account: found.account, keyKind: found.kind, keyId: keyId(hash) }
}

/** The authenticated caller of a route that requires a key. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new ShiplogError('SHIPLOG_ERR_UNAUTHORIZED', 'Missing API key in the Authorization header')
  return request.caller
}
