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

/** Why an address may not receive webhooks, or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  const range = ipaddr.process(address).range()
  return range === 'unicast' ? undefined : `${address} is a ${range} address`
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

/** Why a receiver URL is refused before anything is sent (its host resolved now), or undefined. */
export async function refusedReceiver(url: string, allowPrivate: boolean): Promise<string | undefined> {
  const parsed = new URL(url)
  if (allowPrivate) return undefined
  const host = hostOf(parsed)
  if (ipaddr.isValid(host)) return refusedAddress(host)
  // A name that does not resolve now is let through: the check at send time still holds.
  return new Promise((resolve) =>
    guardedLookup(host, { all: true }, (error) =>
      resolve(error?.message.startsWith('refused: ') ? error.message.replace(/^refused: /, '') : undefined),
    ),
  )
}

export interface PostOutcome {
  status_code: number | null
  error: string | null
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
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: PostOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const fail = (error: string) => settle({ status_code: null, error })
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return fail(`${url} is not a URL`)
    }
    const host = hostOf(parsed)
    if (!options.allowPrivate && ipaddr.isValid(host)) {
      const refused = refusedAddress(host)
      if (refused) return fail(`refused: ${refused}`)
    }
    const timeoutMs = options.timeoutMs ?? RECEIVER_TIMEOUT_MS
    const timer = setTimeout(() => {
      request.destroy()
      fail(`no answer within ${timeoutMs / 1000} s`)
    }, timeoutMs)
    const transport = parsed.protocol === 'https:' ? https : http
    const request = transport.request(
      parsed,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'shiplog-webhooks', ...headers },
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
    request.on('error', (error) => fail(error.message))
    request.end(body)
  })
}
