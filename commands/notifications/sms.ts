import type { PayloadDoc } from '../../projectors/notifications/payload-document.ts'
import {
  decideSmsReply,
  evolveSmsRecipient,
  type SmsRecipientEvent,
  smsRecipientStream,
} from '../../shared/domain/notifications/sms-recipients.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { waitForProjections } from '../../shared/infra/read-store/wait-for-projections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { decideOnStream } from '../execute.ts'
import { payloadAddress, recordPayload } from './record-payload.ts'

type SmsRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids' | 'projections'>

/** Longest a customer's answer waits for the read model of the texts sent. */
const REPLY_WAIT_MS = 2000

/**
 * Records what the provider says became of a sent SMS: its payload's status
 * is folded from the order's stream (the read model may not have the send
 * yet), and the payloads' decider keeps a report told twice from counting twice.
 */
export async function recordDeliveryReport(
  rt: SmsRuntime,
  accountId: number,
  payloadId: number,
  report: { delivered: boolean; error?: string; messageSid: string; to?: string },
): Promise<boolean> {
  const found = await rt.readStore.get<PayloadDoc>(collections.sms_payloads.name, accountId, payloadId)
  if (!found) return false
  const { doc } = found
  const queued = payloadAddress({
    accountId,
    stream: doc.stream,
    notificationId: doc.notification_id,
    payloadId,
    trackerId: doc.tracker_id,
  })
  await recordPayload(
    rt,
    queued,
    (ids) => ({
      type: 'RecordDeliveryReport',
      data: {
        ...ids,
        delivered: report.delivered,
        ...(report.error === undefined ? {} : { error: report.error }),
        provider_message_id: report.messageSid,
        ...(report.to === undefined ? {} : { to: report.to }),
        at: toUnixSeconds(rt.clock.now()),
      },
    }),
    'sms_report',
  )
  return true
}

/**
 * Records a customer's answer to the service's texts (STOP, START) in every
 * account that texted that phone: the service's number is shared, and the
 * answer is to whoever wrote. Anything else the customer writes records nothing.
 */
export async function recordSmsReply(rt: SmsRuntime, phone: string, body: string, correlationId: string) {
  // The texts sent up to now are those it answers: the read model of SMS sent is let catch up to the log first.
  await waitForProjections(rt.readStore, ['sms_payloads'], await rt.eventStore.head(), REPLY_WAIT_MS, rt.projections)
  const texted = await rt.readStore.lookupAll<PayloadDoc>(collections.sms_payloads.name, 'to', phone, 10_000)
  const accounts = [...new Set(texted.map((d) => d.accountId))]
  for (const accountId of accounts) {
    const at = rt.clock.now()
    const command = { phone, body, at: toUnixSeconds(at), recipient_id: rt.ids.next() }
    await decideOnStream<SmsRecipientEvent>(
      rt,
      smsRecipientStream(accountId, phone),
      (history) => decideSmsReply(command, history.reduce(evolveSmsRecipient, undefined as never)),
      () => ({ accountId, correlationId, source: 'api', recordedAt: at.getTime() }),
    )
  }
  return accounts.length
}
