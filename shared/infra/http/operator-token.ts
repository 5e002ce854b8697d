import { timingSafeEqual } from 'node:crypto'

/* The operators' routes (queue dashboard, metrics) take a token of their own, never a merchant's key. */

/** Compared in constant time. */
export const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Whether a request carries the operator token: HTTP Basic's password (any user name), or a Bearer token. */
export const carriesToken = (authorization: string | undefined, token: string) => {
  const given = adminTokenOf(authorization)
  return given !== undefined && sameToken(given, token)
}

/** The admin token of a request: HTTP Basic's password (any user name), or a Bearer token. */
export function adminTokenOf(authorization: string | undefined): string | undefined {
  const [scheme, value] = (authorization ?? '').split(/\s+/, 2)
  if (!value) return undefined
  if (/^bearer$/i.test(scheme!)) return value
  if (!/^basic$/i.test(scheme!)) return undefined
  const decoded = Buffer.from(value, 'base64').toString('utf8')
  return decoded.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : undefined
}
