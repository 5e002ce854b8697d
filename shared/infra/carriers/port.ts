import type { TrackingApi } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'

/** What a carrier's API answered to one call, before it is read. */
export type CallOutcome =
  /** The carrier does not know the number(s) (yet): the tracker stays as it is. */
  | { kind: 'unknown' }
  /** Too many requests (or the day's budget spent): ask again after this long. */
  | { kind: 'rate_limited'; retryAfterMs: number }
  /** The credentials are refused: this carrier is not polled again until they are fixed. */
  | { kind: 'unauthorized'; message: string }
  /** A server error, a timeout or an answer that is not the documented shape: worth another try later. */
  | { kind: 'failed'; error: string }

/** What a carrier's tracking API said of one tracking number. */
export type TrackResult = { kind: 'found'; events: CarrierEventInput[] } | CallOutcome

/** What one call said of each number it asked about: its events, or null for a number the carrier does not know. */
export type BatchResult = { kind: 'found'; byNumber: Map<string, CarrierEventInput[] | null> } | CallOutcome

export interface Parcel {
  trackingNumber: string
  carrierCode: string
}

/** One carrier tracking API: up to `perCall` tracking numbers a call, carrier events out. */
export interface CarrierApiAdapter {
  readonly name: TrackingApi
  readonly perCall: number
  trackMany(parcels: readonly Parcel[]): Promise<BatchResult>
}

/** One carrier tracking API as the poller asks it: one tracking number at a time (calls may be batched). */
export interface CarrierTrackingApi {
  readonly name: TrackingApi
  readonly perCall: number
  track(trackingNumber: string, carrierCode: string): Promise<TrackResult>
}

/** Longest a carrier may take to answer. */
export const CARRIER_TIMEOUT_MS = 10_000
/** The wait after a 429 that gives no Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 60_000

export interface CarrierRequest {
  url: string
  method?: 'GET' | 'POST'
  headers: Record<string, string>
  body?: string
}

/**
 * Calls a carrier API and sorts its answer into what the poller does next;
 * `read` turns a 200's JSON into its result, and throws on a shape it does
 * not know. Nothing here throws.
 */
export async function callCarrier<T>(
  request: CarrierRequest,
  read: (json: unknown) => T,
  options: { unknownStatuses: readonly number[]; timeoutMs?: number },
): Promise<{ kind: 'found'; value: T } | CallOutcome> {
  let response: Response
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers: { accept: 'application/json', ...request.headers },
      body: request.body,
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
    return { kind: 'unauthorized', message: `the credentials were refused (${response.status})` }
  }
  if (response.status === 429 || response.status === 503) {
    const retryAfter = response.headers.get('retry-after')
    if (response.status === 429 || retryAfter) return { kind: 'rate_limited', retryAfterMs: retryAfterMs(retryAfter) }
  }
  if (response.status !== 200) return { kind: 'failed', error: `answered ${response.status}` }
  try {
    return { kind: 'found', value: read(JSON.parse(text)) }
  } catch (error) {
    return { kind: 'failed', error: `malformed answer: ${(error as Error).message}` }
  }
}

/** A one-number API: a 200 is that number's events. */
export async function callForOne(
  parcel: Parcel,
  request: CarrierRequest,
  read: (json: unknown) => CarrierEventInput[] | null,
  options: { unknownStatuses: readonly number[] },
): Promise<BatchResult> {
  const answer = await callCarrier(request, read, options)
  if (answer.kind !== 'found') return answer
  return { kind: 'found', byNumber: new Map([[parcel.trackingNumber, answer.value]]) }
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

export const trimSlash = (url: string) => url.replace(/\/$/, '')

/** A country as carriers write it, kept only when it is an ISO 3166-1 alpha-2 code. */
export const countryOf = (value: string | null | undefined) =>
  value && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : null
