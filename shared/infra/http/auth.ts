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

/** Finds the account of a request's key; 401 without a known key, 403 for a public key on a private route. */
export async function authenticate(
  request: FastifyRequest,
  store: ReadStore,
  policy: AuthPolicy,
): Promise<Caller | undefined> {
  if (policy === 'none') return undefined
  const key = keyFromAuthorization(request.headers.authorization)
  if (!key) throw new ShiplogError('SHIPLOG_ERR_UNAUTHORIZED', 'Missing API key in the Authorization header')
  const hash = hashKey(key)
  const { name } = collections.accounts
  const asPrivate = await store.lookup<AccountDoc>(name, 'private_key_hash', hash)
  if (asPrivate && sameHash(asPrivate.doc.private_key_hash, hash)) {
    return { account: asPrivate.doc, keyKind: 'private', keyId: keyId(hash) }
  }
  const asPublic = await store.lookup<AccountDoc>(name, 'public_key_hash', hash)
  if (asPublic && sameHash(asPublic.doc.public_key_hash, hash)) {
    if (policy !== 'public-or-private') {
      throw new ShiplogError(
        'SHIPLOG_ERR_FORBIDDEN',
        'The public key is not allowed on this route; use the private key',
      )
    }
    return { account: asPublic.doc, keyKind: 'public', keyId: keyId(hash) }
  }
  throw new ShiplogError('SHIPLOG_ERR_UNAUTHORIZED', 'Unknown API key')
}

/** The authenticated caller of a route that requires a key. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new ShiplogError('SHIPLOG_ERR_UNAUTHORIZED', 'Missing API key in the Authorization header')
  return request.caller
}
