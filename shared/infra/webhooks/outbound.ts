import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

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
 * POSTs a body and reports how the receiver answered: a status, or why there
 * was none. Redirects are not followed; nothing here throws.
 */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: {
    allowPrivate: boolean
    timeoutMs?: number
    /** Keep-alive agents to reuse connections through (one pair per endpoint); Node's global ones otherwise. */
    agents?: { http: http.Agent; https: https.Agent }
  },
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false
    let timer: NodeJS.Timeout | undefined
    const settle = (outcome: PostOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const fail = (error: string) => settle({ status_code: null, error })
    const refuse = (why: string) => settle({ status_code: null, error: `refused: ${why}`, refused: true })
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return refuse(`${url} is not a URL`)
    }
    const host = hostOf(parsed)
    if (!options.allowPrivate && ipaddr.isValid(host)) {
      const refused = refusedAddress(host)
      if (refused) return refuse(refused)
    }
    const timeoutMs = options.timeoutMs ?? RECEIVER_TIMEOUT_MS
    timer = setTimeout(() => {
      request.destroy()
      fail(`no answer within ${timeoutMs / 1000} s`)
    }, timeoutMs)
    const transport = parsed.protocol === 'https:' ? https : http
    const request = transport.request(
      parsed,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'shiplog-webhooks', ...headers },
        ...(options.agents ? { agent: parsed.protocol === 'https:' ? options.agents.https : options.agents.http } : {}),
        ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0
        let read = 0
        response.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_ANSWER_BYTES) response.destroy()
        })
        const done = () =>
          settle({
            status_code: status,
            error:
              status >= 300 && status < 400
                ? 'redirects are not followed'
                : status >= 200 && status < 300
                  ? null
                  : `answered ${status}`,
          })
        response.on('end', done)
        response.on('close', done)
        response.on('error', done)
      },
    )
    // What a name resolves to stays out of the delivery log, which the merchant reads.
    request.on('error', (error) => (error.message.startsWith('refused: ') ? refuse(INNER_NAME) : fail(error.message)))
    request.end(body)
  })
}
