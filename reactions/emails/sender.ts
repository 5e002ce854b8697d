import { UnrecoverableError, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import nodemailer from 'nodemailer'
import { decidePayloadOutcome } from '../../shared/domain/notifications/payloads.ts'
import type { OrderEvent } from '../../shared/domain/orders/state.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import type { EventMetadata } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { keepSweeping } from '../../shared/infra/jobs/queue.ts'
import { isRedisReady } from '../../shared/infra/jobs/redis.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { toNewEvents } from '../../commands/execute.ts'
import { trackingPageUrlOf } from '../../shared/infra/tracking-links.ts'
import type { AccountDoc } from '../../projectors/accounts/account.ts'
import type { PayloadDoc } from '../../projectors/notifications/payload.ts'
import { foldOrder } from '../../projectors/orders/evolve.ts'
import type { EmailQueue, QueuedEmail } from './reaction.ts'
import { emailFactsOf, findNotification, renderEmail } from './render.ts'

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

/**
 * Records a payload's outcome on its order's stream, as its decider says (a
 * payload no longer `built` records nothing); whatever else the order does
 * meanwhile, this only adds.
 */
async function recordOutcome(rt: SenderRuntime, email: QueuedEmail, status: string, error: string | undefined) {
  const events = decidePayloadOutcome(
    {
      type: 'RecordPayloadOutcome',
      data: {
        notification_id: email.notificationId,
        payload_id: email.payloadId,
        ...(email.trackerId === undefined ? {} : { tracker_id: email.trackerId }),
        ...(error === undefined ? {} : { error }),
        at: toUnixSeconds(rt.clock.now()),
      },
    },
    { [email.payloadId]: status },
  )
  if (events.length === 0) return
  const metadata: EventMetadata = {
    accountId: email.accountId,
    correlationId: `email_${email.payloadId}`,
    source: 'reaction',
    recordedAt: rt.clock.nowMs(),
  }
  await rt.eventStore.append([{ stream: email.stream, expected: 'any', events: toNewEvents(events, metadata) }])
}

/**
 * Sends the e-mail of one payload still `built`, made from its order as it
 * stands now, and records it dispatched. A fault of the SMTP server throws,
 * for BullMQ to retry; `lastAttempt` records it failed instead.
 */
export async function sendEmail(
  rt: SenderRuntime,
  transport: Pick<ReturnType<typeof nodemailer.createTransport>, 'sendMail'>,
  email: QueuedEmail,
  lastAttempt: boolean,
) {
  const order = foldOrder(asDomainEvents<OrderEvent>(await rt.eventStore.readStream(email.stream)))
  const found = order && findNotification(order, email.notificationId)
  const payload = found?.notification.notification_payloads.find((p) => p.id === email.payloadId)
  if (!order || !found || payload?.status !== 'built') return
  if (!order.email) return recordOutcome(rt, email, payload.status, 'the order has no e-mail address')
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
    return recordOutcome(rt, email, payload.status, reason)
  }
  await recordOutcome(rt, email, payload.status, undefined)
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

/**
 * Queues again every e-mail the log says is still to be sent: the payloads
 * still `built`. A payload already waiting in Redis is not queued twice (its
 * job id), and the sender sends only one still `built`.
 */
async function sweepBuiltEmails(rt: SenderRuntime, queue: EmailQueue) {
  const built = await rt.readStore.lookupAll<PayloadDoc>(
    collections.email_payloads.name,
    'status',
    'built',
    10_000,
  )
  for (const { accountId, doc } of built) {
    const email: QueuedEmail = {
      accountId,
      stream: doc.stream,
      notificationId: doc.notification_id,
      payloadId: doc.id,
      ...(doc.tracker_id === null ? {} : { trackerId: doc.tracker_id }),
    }
    if (!(await queue.enqueue(email))) return
  }
}

/**
 * The worker side of e-mails: sends queued payloads over SMTP (`SMTP_URL`),
 * retried with backoff. On start, every 30 s and whenever Redis comes back,
 * payloads the log shows unsent are queued again: Redis losing its queue
 * loses no e-mail.
 */
export function startEmailSender(rt: SenderRuntime, queue: EmailQueue, connection: Redis, smtpUrl: string) {
  const transport = smtpTransport(smtpUrl)
  const worker = new Worker<QueuedEmail>(
    queue.name,
    async (job) => {
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1)
      await sendEmail(rt, transport, job.data, lastAttempt).catch((error: unknown) => {
        if (lastAttempt) throw new UnrecoverableError(String(error))
        throw error
      })
    },
    { connection, concurrency: 4, lockDuration: 30_000, stalledInterval: 10_000, maxStalledCount: 10 },
  )
  worker.on('failed', (job, error) => rt.logger.warn({ err: error, email: job?.data }, 'e-mail attempt failed'))
  worker.on('error', (error) => {
    if (isRedisReady(connection)) rt.logger.error({ err: error }, 'e-mail sender error')
  })
  const stopSweeping = keepSweeping(
    queue,
    () => sweepBuiltEmails(rt, queue),
    (error) => rt.logger.warn({ err: error }, 'e-mail sweep failed'),
  )
  return {
    async close() {
      stopSweeping()
      await (isRedisReady(connection) ? worker.close() : worker.close(true))
      transport.close()
    },
  }
}
