import nodemailer from 'nodemailer'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { trackingPageUrlOf } from '../../shared/infra/tracking-tokens.ts'
import type { AccountDoc } from '../../projectors/accounts/account.ts'
import { foldOrder } from '../../shared/domain/orders/evolve-document.ts'
import { recordPayload } from '../../commands/notifications/record-payload.ts'
import type { QueuedPayload } from '../notifications/payload-senders.ts'
import { emailFactsOf, renderEmail } from './render.ts'
import { findNotification } from '../../shared/domain/orders/document.ts'

type SenderRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'logger' | 'secrets'>

/** An SMTP server that does not answer within these is a failed attempt, retried later. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

/**
 * `Message-ID` of a payload's e-mail: the same at every attempt, so a resend
 * after a crash (sent, not yet recorded) is recognisable as the same e-mail.
 */
export const messageIdOf = (payloadId: number, from: string) => {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'shiplog.local'
  return `<notification-payload-${payloadId}@${domain}>`
}

const recordOutcome = (rt: SenderRuntime, email: QueuedPayload, error: string | undefined) =>
  recordPayload(
    rt,
    email,
    (ids) => ({
      type: 'RecordPayloadOutcome',
      data: { ...ids, ...(error === undefined ? {} : { error }), at: toUnixSeconds(rt.clock.now()) },
    }),
    'email',
  )

/**
 * Sends the e-mail of one payload still `built`, made from its order as it
 * stands now, and records it dispatched. A fault of the SMTP server throws,
 * for BullMQ to retry; `lastAttempt` records it failed instead.
 */
export async function sendEmail(
  rt: SenderRuntime,
  transport: Pick<ReturnType<typeof nodemailer.createTransport>, 'sendMail'>,
  email: QueuedPayload,
  lastAttempt: boolean,
) {
  const order = foldOrder(asDomainEvents<OrderEvent>(await rt.eventStore.readStream(email.stream)))
  const found = order && findNotification(order, email.notificationId)
  const payload = found?.notification.notification_payloads.find((p) => p.id === email.payloadId)
  if (!order || !found || payload?.status !== 'built') return
  if (!order.email) return recordOutcome(rt, email, 'the order has no e-mail address')
  const account = await rt.readStore.get<AccountDoc>(collections.accounts.name, email.accountId, email.accountId)
  const content = renderEmail(
    emailFactsOf(
      order,
      found,
      account?.doc ?? { name: '', language_code: 'en' },
      trackingPageUrlOf(rt, email.accountId, order),
    ),
  )
  const from = rt.config.SHIPLOG_MAIL_FROM
  try {
    await transport.sendMail({
      from,
      to: order.email,
      subject: content.subject,
      text: content.text,
      html: content.html,
      messageId: messageIdOf(email.payloadId, from),
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    if (!lastAttempt) throw error
    return recordOutcome(rt, email, reason)
  }
  await recordOutcome(rt, email, undefined)
}

/**
 * The SMTP transport of `SMTP_URL`, read by nodemailer itself so its URL
 * options hold (`?tls.rejectUnauthorized=false` for a relay's self-signed
 * certificate, `?ignoreTLS=true`, `?requireTLS=true`, …); shiplog's timeouts
 * apply where the URL sets none.
 */
export function smtpTransport(smtpUrl: string) {
  const url = new URL(smtpUrl)
  for (const [option, ms] of Object.entries(SMTP_TIMEOUTS))
    if (!url.searchParams.has(option)) url.searchParams.set(option, String(ms))
  return nodemailer.createTransport(url.toString())
}
