import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { Agent } from 'undici'

/*
 * Outgoing webhook requests, kept off the service's own network: a receiver
 * must be a public address unless the operator allows private ones. The
 * check runs on the address actually connected to, after DNS resolution, so a
 * name that resolves to an inner address later is refused too.
 */

/**
 * Why an address may not receive webhooks, or undefined when it may. IPv6
 * forms that embed an IPv4 address are judged by it: mapped ones are IPv4
 * once processed, NAT64, 6to4 and Teredo have ranges of their own, and an
 * IPv4-compatible one (`::a.b.c.d`, which a URL writes `::7f00:1`) is read
 * back into its IPv4 address here.
 */
export function refusedAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  const parsed = ipaddr.process(address)
  const compatible = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)
  const judged = compatible ? ipaddr.fromByteArray((parsed as ipaddr.IPv6).toByteArray().slice(12)) : parsed
  const range = judged.range()
  if (range === 'unicast') return undefined
  return compatible ? `${address} embeds a ${range} IPv4 address` : `${address} is a ${range} address`
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1')

/** A DNS lookup that fails on any address `refusedAddress` refuses. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0)
    const refused = addresses.map((a) => refusedAddress(a.address)).find((why) => why !== undefined)
    if (refused) return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${refused}`)), '', 0)
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
    const first = addresses[0]!
    callback(null, first.address, first.family)
  })
}

/** What a merchant is told of a name that resolves to an inner address: never the address itself. */
export const INNER_NAME = 'its host resolves to an address webhooks may not reach (private, loopback or reserved)'

/**
 * Why a receiver URL is refused before anything is sent (its host resolved
 * now), or undefined: `reason` for the merchant, `detail` (what a name
 * resolves to) for the operator's log only.
 */
export async function refusedReceiver(
  url: string,
  allowPrivate: boolean,
): Promise<{ reason: string; detail: string } | undefined> {
  const parsed = new URL(url)
  if (allowPrivate) return undefined
  const host = hostOf(parsed)
  if (ipaddr.isValid(host)) {
    const refused = refusedAddress(host)
    return refused === undefined ? undefined : { reason: refused, detail: refused }
  }
  // A name that does not resolve now is let through: the check at send time still holds.
  return new Promise((resolve) =>
    guardedLookup(host, { all: true }, (error) =>
      resolve(
        error?.message.startsWith('refused: ')
          ? { reason: INNER_NAME, detail: error.message.replace(/^refused: /, '') }
          : undefined,
      ),
    ),
  )
}

export interface PostOutcome {
  status_code: number | null
  error: string | null
  /** Nothing was sent: the receiver is not one webhooks may reach (its address, or no URL at all). */
  refused?: true
}

/** Longest an answer may take, in ms. */
export const RECEIVER_TIMEOUT_MS = 10_000
/** Of a receiver's answer only this much is read: its status is what counts. */
const MAX_ANSWER_BYTES = 64 * 1024

/**
 * Keep-alive connections to receivers, at most `connections` to each: the
 * webhook sender keeps one per endpoint. Unless private addresses are
 * allowed, every connection's address is checked when its name resolves.
 */
export function receiverConnections(connections: number, allowPrivate: boolean) {
  return new Agent({
    connections,
    connect: { timeout: RECEIVER_TIMEOUT_MS, ...(allowPrivate ? {} : { lookup: guardedLookup }) },
  })
}

export type ReceiverConnections = ReturnType<typeof receiverConnections>

/** One pool for the posts that name none, by whether private addresses are allowed. */
const shared = new Map<boolean, ReceiverConnections>()
const sharedConnections = (allowPrivate: boolean) => {
  let dispatcher = shared.get(allowPrivate)
  if (!dispatcher) {
    dispatcher = receiverConnections(16, allowPrivate)
    shared.set(allowPrivate, dispatcher)
  }
  return dispatcher
}

/** The error codes of an answer that did not come in time (undici's). */
const TIMED_OUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/**
 * POSTs a body and reports how the receiver answered: a status, or why there
 * was none. Redirects are not followed; nothing here throws.
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: {
    allowPrivate: boolean
    timeoutMs?: number
    /** Connections to reuse (see receiverConnections); a pool shared by every caller otherwise. */
    connections?: ReceiverConnections
  },
): Promise<PostOutcome> {
  const refuse = (why: string): PostOutcome => ({ status_code: null, error: `refused: ${why}`, refused: true })
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return refuse(`${url} is not a URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return refuse(`${parsed.protocol} is not HTTP`)
  const host = hostOf(parsed)
  if (!options.allowPrivate && ipaddr.isValid(host)) {
    const refused = refusedAddress(host)
    if (refused) return refuse(refused)
  }
  const timeoutMs = options.timeoutMs ?? RECEIVER_TIMEOUT_MS
  const dispatcher = options.connections ?? sharedConnections(options.allowPrivate)
  const answered = (status: number): PostOutcome => ({
    status_code: status,
    error:
      status >= 300 && status < 400
        ? 'redirects are not followed'
        : status >= 200 && status < 300
          ? null
          : `answered ${status}`,
  })
  const failed = (error: Error): PostOutcome => {
    const { code, message } = error as Error & { code?: string }
    if (code !== undefined && TIMED_OUT.has(code))
      return { status_code: null, error: `no answer within ${timeoutMs / 1000} s` }
    // What a name resolves to stays out of the delivery log, which the merchant reads.
    return message.startsWith('refused: ') ? refuse(INNER_NAME) : { status_code: null, error: message }
  }
  // undici's lowest-level call: an answer's status is all that counts, and `request`
  // would make a response stream to drain for each, at twice the CPU a message.
  return new Promise<PostOutcome>((resolve) => {
    let status: number | undefined
    let read = 0
    let abort: ((error?: Error) => void) | undefined
    try {
      dispatcher.dispatch(
        {
          origin: parsed.origin,
          path: `${parsed.pathname}${parsed.search}`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'shiplog-webhooks', ...headers },
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        {
          onConnect(abortRequest) {
            abort = abortRequest
          },
          onHeaders(statusCode) {
            // 1xx answers are interim: the status that counts comes after them.
            if (statusCode >= 200) status = statusCode
            return true
          },
          onData(chunk) {
            // Of an answer only MAX_ANSWER_BYTES are read: a receiver that goes on has still answered.
            read += chunk.length
            if (read > MAX_ANSWER_BYTES) {
              resolve(answered(status!))
              abort?.(new Error('answer too long'))
              return false
            }
            return true
          },
          onComplete() {
            resolve(answered(status!))
          },
          onError(error) {
            // An answer broken off after its status still answered.
            resolve(status === undefined ? failed(error) : answered(status))
          },
        },
      )
    } catch (error) {
      resolve(failed(error as Error))
    }
  })
}
