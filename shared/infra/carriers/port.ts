import type { TrackingApi } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'

/** What a carrier's tracking API said of one tracking number. */
export type TrackResult =
  | { kind: 'found'; events: CarrierEventInput[] }
  /** The carrier does not know the number (yet): the tracker stays as it is. */
  | { kind: 'unknown' }
  /** Too many requests: ask again after this long. */
  | { kind: 'rate_limited'; retryAfterMs: number }
  /** The key is refused: this carrier is not polled again until the key is fixed. */
  | { kind: 'unauthorized'; message: string }
  /** A server error, a timeout or an answer that is not the documented shape: worth another try later. */
  | { kind: 'failed'; error: string }

/** One carrier tracking API behind the same port: a tracking number in, carrier events out. */
export interface CarrierTrackingApi {
  readonly name: TrackingApi
  track(trackingNumber: string, carrierCode: string): Promise<TrackResult>
}

/** Longest a carrier may take to answer. */
export const CARRIER_TIMEOUT_MS = 10_000
/** The wait after a 429 that gives no Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 60_000

/**
 * GETs a carrier API and sorts its answer into what the poller does next;
 * `read` turns a 200's JSON into events, and throws on a shape it does not
 * know. Nothing here throws.
 */
export async function getTracking(
  url: string,
  headers: Record<string, string>,
  read: (json: unknown) => CarrierEventInput[],
  options: { unknownStatuses: readonly number[]; timeoutMs?: number },
): Promise<TrackResult> {
  let response: Response
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', ...headers },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? CARRIER_TIMEOUT_MS),
    })
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError'
    return { kind: 'failed', error: timedOut ? 'no answer within 10 s' : (error as Error).message }
  }
  const text = await response.text().catch(() => '')
  if (options.unknownStatuses.includes(response.status)) return { kind: 'unknown' }
  if (response.status === 401 || response.status === 403) {
    return { kind: 'unauthorized', message: `the API key was refused (${response.status})` }
  }
  if (response.status === 429)
    return { kind: 'rate_limited', retryAfterMs: retryAfterMs(response.headers.get('retry-after')) }
  if (response.status !== 200) return { kind: 'failed', error: `answered ${response.status}` }
  try {
    return { kind: 'found', events: read(JSON.parse(text)) }
  } catch (error) {
    return { kind: 'failed', error: `malformed answer: ${(error as Error).message}` }
  }
}

/** `Retry-After` in seconds or as an HTTP date. */
function retryAfterMs(header: string | null): number {
  if (!header) return DEFAULT_RETRY_AFTER_MS
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? DEFAULT_RETRY_AFTER_MS : Math.max(0, at - Date.now())
}

/** ISO 8601 to Unix seconds; throws on anything else (a malformed answer). */
export function unixSeconds(iso: string): number {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new Error(`${iso} is not a date`)
  return Math.floor(ms / 1000)
}
