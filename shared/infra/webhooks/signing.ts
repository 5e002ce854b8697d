import { createHmac } from 'node:crypto'
import { toUnixSeconds } from '../../domain/time.ts'

/** Signs a message: its id, when it was sent, and its body. */
export type WebhookSigner = (webhookId: string, at: Date, body: string) => string

/** How a Standard Webhooks secret begins; its base64 key follows. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/**
 * A Standard Webhooks signer: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under the secret's bytes (`whsec_` and base64). Node's
 * own HMAC, where the `standardwebhooks` package hashes in JavaScript for
 * about a tenth of the sender's time a message; its tests verify what this
 * signs with that package.
 */
export function webhookSigner(secret: string): WebhookSigner {
  const key = Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  )
  return (webhookId, at, body) =>
    `v1,${createHmac('sha256', key)
      .update(`${webhookId}.${toUnixSeconds(at)}.${body}`)
      .digest('base64')}`
}
