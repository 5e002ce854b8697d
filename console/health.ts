import type { WebhookDeliveryDoc } from '../projectors/webhooks/delivery.ts'
import type { WebhookEndpointDoc } from '../projectors/webhooks/endpoint.ts'
import { failing } from './endpoint-health.ts'
import type { ConfiguredCarrierApi } from '../shared/infra/carriers/apis.ts'
import { type CarrierLedger, carrierApiFigures } from '../shared/infra/carriers/ledger.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import { firstIdAt } from '../shared/infra/id-generator.ts'
import type { NotificationDoc } from '../projectors/notifications/notification.ts'
import type { PayloadDoc } from '../projectors/notifications/payload-document.ts'
import { findNotification, type OrderDoc } from '../shared/domain/orders/document.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

/*
 * The overview's health: what is wrong with the account's integrations now,
 * each problem a line saying where to look. Carrier APIs near their daily
 * budget or failing today; webhook endpoints whose messages are being
 * retried, or were given up on this week; e-mails and SMS that failed this week.
 */

/** A share of a carrier API's daily budget past which the overview warns. */
export const BUDGET_WARNING = 0.8
const DAY = 86_400
/** The lowest id made in the 7 days up to `now` (Unix seconds): the week's documents are the ids above it. */
export const firstIdOfWeek = (now: number) => firstIdAt((now - 7 * DAY) * 1000)
/** Pending messages looked at for retries: the newest, as a failing endpoint's are. */
const PENDING_LOOKED_AT = 100

export interface Problem {
  text: string
  href: string
}

export async function problemsOf(
  rt: Pick<Runtime, 'readStore'>,
  accountId: number,
  carriers: { settings: readonly ConfiguredCarrierApi[]; ledger: CarrierLedger | undefined },
  now: number,
  time: (seconds: number) => string,
): Promise<Problem[]> {
  const [apis, webhooks, sends] = await Promise.all([
    carriers.ledger ? carrierApiFigures(carriers.settings, carriers.ledger) : [],
    webhookProblems(rt, accountId, now, time),
    sendingProblems(rt, accountId, now, time),
  ])
  const problems: Problem[] = []
  for (const api of apis.filter((a) => a.configured)) {
    const href = '/console/settings/carriers'
    if (api.daily_budget && api.requests_today !== null && api.requests_today >= BUDGET_WARNING * api.daily_budget)
      problems.push({
        text: `The ${api.api} API has used ${Math.round((100 * api.requests_today) / api.daily_budget)} % of today’s budget (${api.requests_today} of ${api.daily_budget} requests).`,
        href,
      })
    if (api.last_error && now - api.last_error.at < DAY)
      problems.push({
        text: `The ${api.api} API failed at ${time(api.last_error.at)}: ${api.last_error.message}`,
        href,
      })
  }
  return [...problems, ...webhooks, ...sends]
}

/** Failed messages looked at: the newest, enough to say "100 or more". */
const FAILED_LOOKED_AT = 100

/**
 * E-mails and SMS to customers that failed this week (their notifications
 * made in the last 7 days: ids are time-ordered), each channel a line with
 * how many and why the newest failed, pointing at its order.
 */
async function sendingProblems(
  rt: Pick<Runtime, 'readStore'>,
  accountId: number,
  now: number,
  time: (seconds: number) => string,
) {
  const since = firstIdOfWeek(now)
  const [emails, sms] = await Promise.all([
    rt.readStore.find<NotificationDoc>(collections.notifications.name, {
      accountId,
      where: [{ field: 'email_status', op: 'eq', value: 'failed' }],
      limit: FAILED_LOOKED_AT,
    }),
    rt.readStore.find<PayloadDoc>(collections.sms_payloads.name, {
      accountId,
      where: [{ field: 'status', op: 'in', values: ['failed', 'undelivered'] }],
      limit: FAILED_LOOKED_AT,
    }),
  ])
  const lines = [
    {
      type: 'email',
      one: 'e-mail',
      many: 'e-mails',
      sent: emails.docs.map((d) => ({ stream: d.doc.order_key, notification: d.doc.id })),
    },
    {
      type: 'sms',
      one: 'SMS',
      many: 'SMS',
      sent: sms.docs.map((d) => ({ stream: d.doc.stream, notification: d.doc.notification_id })),
    },
  ] as const
  const problems: Problem[] = []
  for (const { type, one, many, sent } of lines) {
    const failed = sent.filter((f) => f.notification >= since)
    const newest = failed[0]
    if (!newest) continue
    const order = (await rt.readStore.getByKey<OrderDoc>(collections.orders.name, newest.stream))?.doc
    const found = order && findNotification(order, newest.notification)
    const payload = found?.notification.notification_payloads.find((p) => p.type === type)
    const count = failed.length === FAILED_LOOKED_AT ? `${FAILED_LOOKED_AT} or more` : String(failed.length)
    const messages = failed.length > 1 ? many : one
    const why = payload?.error ? `: ${payload.error}` : ''
    problems.push({
      text: `${count} ${messages} to customers failed this week; the newest, of ${time(found?.notification.created_at ?? now)}, for order ${order?.order_number ?? '?'}${why}.`,
      href: order ? `/console/orders/${order.id}` : '/console/notifications',
    })
  }
  return problems
}

async function webhookProblems(
  rt: Pick<Runtime, 'readStore'>,
  accountId: number,
  now: number,
  time: (seconds: number) => string,
) {
  const deliveries = collections.webhook_deliveries.name
  const [pending, failed] = await Promise.all([
    rt.readStore.find<WebhookDeliveryDoc>(deliveries, {
      accountId,
      where: [{ field: 'status', op: 'eq', value: 'pending' }],
      limit: PENDING_LOOKED_AT,
    }),
    rt.readStore.find<WebhookDeliveryDoc>(deliveries, {
      accountId,
      where: [{ field: 'status', op: 'eq', value: 'failed' }],
      limit: 1,
    }),
  ])
  // Each endpoint once: its newest retried message says how it fails.
  const retried = new Map<number, WebhookDeliveryDoc>()
  for (const { doc } of pending.docs)
    if (failing(doc) && !retried.has(doc.endpoint_id)) retried.set(doc.endpoint_id, doc)
  const givenUp = failed.docs[0]?.doc
  const recent = givenUp && now - givenUp.created_at < 7 * DAY && !retried.has(givenUp.endpoint_id) ? [givenUp] : []
  const endpoints = new Map(
    await Promise.all(
      [...retried.keys(), ...recent.map((d) => d.endpoint_id)].map(
        async (id) =>
          [
            id,
            (await rt.readStore.get<WebhookEndpointDoc>(collections.webhook_endpoints.name, accountId, id))?.doc,
          ] as const,
      ),
    ),
  )
  const answer = (d: WebhookDeliveryDoc) =>
    d.last_status_code ? `it answered ${d.last_status_code}` : (d.last_error ?? 'no answer')
  const named = (id: number) => endpoints.get(id)?.url ?? `endpoint ${id}`
  return [
    ...[...retried.values()].map((d) => ({
      text: `Webhooks to ${named(d.endpoint_id)} are failing and being retried: ${answer(d)}.`,
      href: `/console/webhooks/${d.endpoint_id}`,
    })),
    ...recent.map((d) => ({
      text: `A webhook message of ${time(d.created_at)} to ${named(d.endpoint_id)} was given up on after its retries: ${answer(d)}.`,
      href: `/console/webhooks/${d.endpoint_id}`,
    })),
  ]
}
