import { DelayedError, type Job } from 'bullmq'
import type { AccountDoc } from '../../projectors/accounts/account.ts'
import { deliveryAddressOf } from '../../shared/domain/orders/document.ts'
import { foldOrder } from '../../shared/domain/orders/evolve-document.ts'
import { isDialable } from '../../shared/domain/contacts/phones.ts'
import { timeZoneAt } from '../../shared/domain/contacts/time-zones.ts'
import { DEFAULT_QUIET_HOURS, quietUntil } from '../../shared/domain/notifications/quiet-hours.ts'
import {
  evolveSmsRecipient,
  type SmsRecipientEvent,
  smsRecipientStream,
} from '../../shared/domain/notifications/sms-recipients.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { trackingPageOf } from '../../shared/domain/tracking-page/settings.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import type { SmsSettings } from '../../shared/infra/config.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { sendSms, SmsRefused } from '../../shared/infra/sms/twilio.ts'
import { trackingPageUrlOf } from '../../shared/infra/tracking-tokens.ts'
import { findNotification } from '../../shared/domain/orders/document.ts'
import { recordPayload } from '../../commands/notifications/record-payload.ts'
import type { QueuedPayload } from '../notifications/payload-senders.ts'
import { renderSms } from './render.ts'

type SenderRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'logger' | 'secrets'>

/** Where Twilio reports a message's delivery: signed with the auth token, so its query cannot be forged. */
export const STATUS_CALLBACK_PATH = '/v1/sms/status'

const record = (rt: SenderRuntime, sms: QueuedPayload, outcome: { error?: string; sid?: string; to?: string }) =>
  recordPayload(
    rt,
    sms,
    (ids) => ({
      type: 'RecordPayloadOutcome',
      data: {
        ...ids,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
        ...(outcome.sid === undefined ? {} : { provider_message_id: outcome.sid, to: outcome.to }),
        at: toUnixSeconds(rt.clock.now()),
      },
    }),
    'sms',
  )

/**
 * Sends the SMS of one payload still `built`, made from its order as it stands
 * now, and records it dispatched with the provider's id of the message. A
 * number that cannot be texted, a customer who answered STOP, or a refusal the
 * provider would repeat (400) is `failed` at once; a refusal for now (429,
 * 5xx, no answer) throws, for BullMQ to retry, and is `failed` at the last
 * attempt. In the account's quiet hours at the customer's address the job
 * waits until they end.
 */
export async function sendSmsPayload(
  rt: SenderRuntime,
  settings: SmsSettings,
  sms: QueuedPayload,
  attempt: { last: boolean; job?: Job<QueuedPayload>; token?: string },
) {
  const order = foldOrder(asDomainEvents<OrderEvent>(await rt.eventStore.readStream(sms.stream)))
  const found = order && findNotification(order, sms.notificationId)
  const payload = found?.notification.notification_payloads.find((p) => p.id === sms.payloadId)
  if (!order || !found || payload?.status !== 'built') return
  const phone = order.phone
  if (!phone || !isDialable(phone)) return record(rt, sms, { error: 'the order has no phone number a text can reach' })
  // The customer's answers are read from their stream, not a read model: a STOP just recorded holds at once.
  const answers = asDomainEvents<SmsRecipientEvent>(
    await rt.eventStore.readStream(smsRecipientStream(sms.accountId, phone)),
  )
  if (answers.reduce(evolveSmsRecipient, undefined as never)?.optedOut)
    return record(rt, sms, { error: 'the customer answered STOP: no SMS to this number' })
  const account = (await rt.readStore.get<AccountDoc>(collections.accounts.name, sms.accountId, sms.accountId))?.doc

  const address = deliveryAddressOf(order)
  const zone = timeZoneAt(address?.country_code ?? null, address?.state ?? null) ?? 'UTC'
  const quiet = account?.sms_quiet_hours === undefined ? DEFAULT_QUIET_HOURS : account.sms_quiet_hours
  const until = quietUntil(rt.clock.now(), zone, quiet)
  if (until && attempt.job && attempt.token) {
    // Held, not an attempt: the job comes back when the quiet hours end.
    await attempt.job.moveToDelayed(until.getTime(), attempt.token)
    throw new DelayedError()
  }

  const base = rt.config.SHIPLOG_PUBLIC_URL
  const text = renderSms({
    slug: found.notification.notification_type.slug,
    language: found.notification.language_code || account?.language_code || 'en',
    brand: account ? (trackingPageOf(account).brand_name ?? account.name) : '',
    order_number: order.order_number,
    link: trackingPageUrlOf(rt, sms.accountId, order),
  })
  const statusCallback = base && `${base}${STATUS_CALLBACK_PATH}?account=${sms.accountId}&payload=${sms.payloadId}`
  let sent: { sid: string }
  try {
    sent = await sendSms(settings, { to: phone, body: text.body, ...(statusCallback ? { statusCallback } : {}) })
  } catch (error) {
    const permanent = error instanceof SmsRefused && error.permanent
    if (!permanent && !attempt.last) throw error
    return record(rt, sms, { error: (error as Error).message })
  }
  await record(rt, sms, { sid: sent.sid, to: phone })
}
