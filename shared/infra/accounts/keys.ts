import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export type KeyKind = 'private' | 'public'

/**
 * API keys: 32 random bytes, prefixed by kind so a leaked key says what it is.
 * Only the SHA-256 of a key is stored; a key has full entropy, so an unsalted
 * hash is both safe and directly indexable for the lookup.
 */
export function generateKey(kind: KeyKind): string {
  return `${kind === 'private' ? 'sk' : 'pk'}_${randomBytes(32).toString('base64url')}`
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')

/** A key's public id, recorded in event metadata instead of the key. */
export const keyId = (hash: string) => `key_${hash.slice(0, 16)}`

export function sameHash(a: string, b: string) {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && timingSafeEqual(x, y)
}

/** `Authorization: Bearer <key>` and `Authorization: <key>` are both accepted. */
export function keyFromAuthorization(header: string | undefined): string | undefined {
  const value = header?.trim()
  if (!value) return undefined
  const match = /^Bearer\s+(.+)$/i.exec(value)
  return (match ? match[1]! : value).trim() || undefined
}

/** A new pair of keys, shown once, and what the account records of them: their ids and hashes. */
export function newKeyPair() {
  const keys = { private: generateKey('private'), public: generateKey('public') }
  const recorded = (key: string) => {
    const hash = hashKey(key)
    return { id: keyId(hash), hash }
  }
  return { keys, recorded: { private_key: recorded(keys.private), public_key: recorded(keys.public) } }
}
