import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

/*
 * Console passwords, stored as scrypt hashes with OWASP's parameters
 * (N = 2^17, r = 8, p = 1): `scrypt$<N>$<r>$<p>$<salt>$<hash>`, base64url.
 * The parameters travel with each hash, so stronger ones can come later
 * without invalidating the stored ones.
 */

const N = 2 ** 17
const R = 8
const P = 1
const KEY_BYTES = 32
/** scrypt needs 128 · N · r bytes; Node refuses above 32 MB unless told. */
const maxmem = (n: number, r: number) => 256 * n * r

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { N: n, r, p, maxmem: maxmem(n, r) }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, N, R, P)
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** A hash nobody's password matches, checked against when no user has the address, so both take as long. */
let decoy: Promise<string> | undefined
const decoyHash = () => {
  decoy ??= hashPassword(randomBytes(16).toString('hex'))
  return decoy
}

/** Whether the password is the one hashed; undefined `stored` still costs a hash. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const hash = stored ?? (await decoyHash())
  const [scheme, n, r, p, salt, key] = hash.split('$')
  if (scheme !== 'scrypt' || !salt || !key) return false
  const expected = Buffer.from(key, 'base64url')
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p))
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected)
}

/** What a console password must be: long enough to resist guessing, short enough to hash. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 12) return 'must be at least 12 characters'
  if (password.length > 256) return 'must be at most 256 characters'
  return undefined
}
