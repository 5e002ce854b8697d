import { refusedReceiver } from '../webhooks/outbound.ts'

/*
 * A call to a merchant's store (Shopify's Admin API, WooCommerce's REST API)
 * and what became of it: the store is held to the webhook receivers' rules
 * at every call, a refused credential stops the connection, a busy or
 * broken store is retried later, anything else fails for good.
 */

export type StoreCall<T = undefined> =
  | { kind: 'ok'; value: T }
  | { kind: 'unauthorized'; error: string }
  | { kind: 'retry'; error: string; afterMs?: number }
  | { kind: 'failed'; error: string }

/** A store's answer, untrusted in every field: read field by field, each checked where it is used. */
// biome-ignore lint/suspicious/noExplicitAny: the stores' JSON is read defensively where it is used.
export type StoreJson = any

const TIMEOUT_MS = 10_000

/** An HTTP call to a store, its answer's JSON and status, or why none came. */
export async function callStore(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  allowPrivate: boolean,
): Promise<StoreCall<{ status: number; json: StoreJson; headers: Headers }>> {
  const refused = await refusedReceiver(url, allowPrivate)
  if (refused) return { kind: 'failed', error: `the store is refused: ${refused.reason}` }
  let response: Response
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) })
  } catch (error) {
    return { kind: 'retry', error: `the store did not answer: ${(error as Error).message}` }
  }
  const text = await response.text()
  let json: StoreJson
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  if (response.status === 401 || response.status === 403)
    return { kind: 'unauthorized', error: `the store refused the credentials (${response.status})` }
  if (response.status === 429 || response.status >= 500) {
    const after = Number(response.headers.get('retry-after'))
    return {
      kind: 'retry',
      error: `the store answered ${response.status}`,
      afterMs: Number.isFinite(after) && after > 0 ? after * 1000 : undefined,
    }
  }
  if (response.status >= 400)
    return { kind: 'failed', error: `the store answered ${response.status}: ${text.slice(0, 200)}` }
  return { kind: 'ok', value: { status: response.status, json, headers: response.headers } }
}
