import { z } from 'zod'
import { type BatchResult, type CallOutcome, callCarrier } from './port.ts'

/*
 * OAuth 2 client credentials, as UPS, FedEx and USPS ask them: a token
 * fetched once and kept until a minute before its expiry, then fetched again.
 * A call refused with a kept token fetches a new one and tries once more (a
 * token revoked early).
 */

const tokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive() })
/** A token is fetched again this long before it expires. */
const EARLY_MS = 60_000

export interface ClientCredentials {
  tokenUrl: string
  clientId: string
  clientSecret: string
  scope?: string
  /** Where the credentials go: HTTP Basic (UPS) or the form body (FedEx, USPS). */
  style: 'basic' | 'form'
}

export function oauthClient(credentials: ClientCredentials, clock: () => number = Date.now) {
  let kept: { token: string; expiresAt: number } | undefined
  let fetching: Promise<{ kind: 'token'; token: string } | CallOutcome> | undefined

  const fetchToken = async (): Promise<{ kind: 'token'; token: string } | CallOutcome> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials' })
    if (credentials.scope) form.set('scope', credentials.scope)
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
    if (credentials.style === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`
    } else {
      form.set('client_id', credentials.clientId)
      form.set('client_secret', credentials.clientSecret)
    }
    const answer = await callCarrier(
      { url: credentials.tokenUrl, method: 'POST', headers, body: form.toString() },
      (json) => tokenAnswer.parse(json),
      { unknownStatuses: [] },
    )
    if (answer.kind !== 'found') {
      // A token endpoint answers a refused client with 400 or 401 (RFC 6749 §5.2).
      return answer.kind === 'failed' && answer.error === 'answered 400'
        ? { kind: 'unauthorized', message: 'the client credentials were refused (400)' }
        : answer
    }
    kept = { token: answer.value.access_token, expiresAt: clock() + answer.value.expires_in * 1000 - EARLY_MS }
    return { kind: 'token', token: kept.token }
  }

  const token = () => {
    if (kept && kept.expiresAt > clock()) return Promise.resolve({ kind: 'token' as const, token: kept.token })
    fetching ??= fetchToken().finally(() => {
      fetching = undefined
    })
    return fetching
  }

  return {
    /** Calls with `Authorization: Bearer <token>`; a refusal with a kept token is tried once more with a new one. */
    async call(call: (authorization: string) => Promise<BatchResult>): Promise<BatchResult> {
      for (let attempt = 0; ; attempt++) {
        const got = await token()
        if (got.kind !== 'token') return got
        const result = await call(`Bearer ${got.token}`)
        if (result.kind !== 'unauthorized' || attempt > 0) return result
        kept = undefined
      }
    },
  }
}
