import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto'
import { FIRST_TRACKING_LINK } from '../domain/orders/tracking-link-rotation.ts'
import type { Config } from './config.ts'
import type { SecretBox } from './secrets.ts'

/*
 * The token of an order's tracking page: the account, the order and the
 * link's id, encrypted and authenticated under keys derived from the
 * service's key (a synthetic-IV construction: the IV is an HMAC of the
 * plaintext, so one order's link is always the same token, and a token
 * nobody made fails its check). It names no id a reader can see, cannot be
 * guessed (a 128-bit tag), and needs no index to find its order.
 */

export interface TrackingLinkTarget {
  accountId: number
  orderId: number
  /** The order's current link id; a rotation moves it, and older tokens stop matching. */
  linkId: number
}

export interface TrackingTokens {
  tokenOf(target: TrackingLinkTarget): string
  /** The target a token names, or undefined for anything that is not a token this service made. */
  open(token: string): TrackingLinkTarget | undefined
}

const TAG_BYTES = 16
const PLAIN_BYTES = 24
const TOKEN = /^[A-Za-z0-9_-]{54}$/

/** One per secret box: its keys are derived once. */
const made = new WeakMap<object, TrackingTokens>()

export function trackingTokens(secrets: Pick<SecretBox, 'derive'>): TrackingTokens {
  const known = made.get(secrets)
  if (known) return known
  const tokens = tokensOf(secrets)
  made.set(secrets, tokens)
  return tokens
}

function tokensOf(secrets: Pick<SecretBox, 'derive'>): TrackingTokens {
  let keys: { cipher: Buffer; mac: Buffer } | undefined
  const keysOf = () =>
    (keys ??= { cipher: secrets.derive('tracking link cipher'), mac: secrets.derive('tracking link tag') })
  const tagOf = (plain: Buffer) => createHmac('sha256', keysOf().mac).update(plain).digest().subarray(0, TAG_BYTES)
  const ctr = (iv: Buffer, data: Buffer) => {
    const cipher = createCipheriv('aes-256-ctr', keysOf().cipher, iv)
    return Buffer.concat([cipher.update(data), cipher.final()])
  }
  return {
    tokenOf({ accountId, orderId, linkId }) {
      const plain = Buffer.alloc(PLAIN_BYTES)
      plain.writeBigUInt64BE(BigInt(accountId), 0)
      plain.writeBigUInt64BE(BigInt(orderId), 8)
      plain.writeBigUInt64BE(BigInt(linkId), 16)
      const tag = tagOf(plain)
      return Buffer.concat([tag, ctr(tag, plain)]).toString('base64url')
    },
    open(token) {
      if (!TOKEN.test(token)) return undefined
      const bytes = Buffer.from(token, 'base64url')
      const tag = bytes.subarray(0, TAG_BYTES)
      const plain = ctr(tag, bytes.subarray(TAG_BYTES))
      if (!timingSafeEqual(tag, tagOf(plain))) return undefined
      return {
        accountId: Number(plain.readBigUInt64BE(0)),
        orderId: Number(plain.readBigUInt64BE(8)),
        linkId: Number(plain.readBigUInt64BE(16)),
      }
    },
  }
}

/** The tracking link resource: the page's address (under `baseUrl`) and its token, for an order's current link. */
export const trackingLinkOf = (tokens: TrackingTokens, baseUrl: string, target: TrackingLinkTarget) => {
  const token = tokens.tokenOf(target)
  return { object: 'tracking_link' as const, order_id: target.orderId, token, url: `${baseUrl}/track/${token}` }
}

/** An order's tracking page address where the service has a public one (SHIPLOG_PUBLIC_URL), else null. */
export function trackingPageUrlOf(
  rt: { config: Pick<Config, 'SHIPLOG_PUBLIC_URL'>; secrets: Pick<SecretBox, 'derive'> },
  accountId: number,
  order: { id: number; tracking_link_id?: number },
): string | null {
  const base = rt.config.SHIPLOG_PUBLIC_URL
  if (!base) return null
  const target = { accountId, orderId: order.id, linkId: order.tracking_link_id ?? FIRST_TRACKING_LINK }
  return trackingLinkOf(trackingTokens(rt.secrets), base, target).url
}
