import { z } from 'zod'
import { type AccountDoc, delayRulesOf } from '../../projectors/accounts/account.ts'
import { delayRules, quietHours } from '../../shared/domain/events/account-events.ts'
import { timeZone } from '../../shared/domain/fields.ts'
import { accountLanguage } from '../../shared/domain/notifications/languages.ts'
import { type NotificationSlug, notificationSlugs } from '../../shared/domain/notifications/types.ts'
import { trackingPageOf, trackingPageSettings } from '../../shared/domain/tracking-page/settings.ts'
import { channelList } from '../../shared/domain/vocabulary/channels.ts'
import type { EventMetadata } from '../../shared/infra/event-store/port.ts'
import { changeAccount } from './change-account.ts'

/*
 * The account's settings a merchant changes: its language, SMS quiet hours,
 * delay rules, time zone, tracking page and notification types. The API's routes and
 * the console's forms take the same bodies through these, so both record the
 * same `AccountUpdated` after the same checks.
 */

type Origin = Pick<EventMetadata, 'source' | 'correlationId' | 'keyId'>
type SettingsRuntime = Parameters<typeof changeAccount>[0]

export const accountSettingsBody = z
  .strictObject({
    language_code: accountLanguage,
    sms_quiet_hours: quietHours.nullable(),
    /** Either rule alone may be sent: the other keeps its value. */
    delay_rules: delayRules.partial(),
    time_zone: timeZone,
  })
  .partial()
  .refine(
    (body) => Object.keys(body).length > 0,
    'must change language_code, sms_quiet_hours, delay_rules or time_zone',
  )

export const trackingPageBody = trackingPageSettings.partial().strict()

export const notificationTypeBody = z
  .strictObject({ enabled: z.boolean(), channels: channelList })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must change enabled or channels')

const update = (rt: SettingsRuntime, account: AccountDoc, changes: object, origin: Origin) =>
  changeAccount(rt, account.id, (at) => ({ type: 'UpdateAccount', data: { changes, at } }), origin)

export function changeAccountSettings(
  rt: SettingsRuntime,
  account: AccountDoc,
  body: z.output<typeof accountSettingsBody>,
  origin: Origin,
) {
  const { delay_rules, ...rest } = body
  const changes = delay_rules ? { ...rest, delay_rules: { ...delayRulesOf(account), ...delay_rules } } : rest
  return update(rt, account, changes, origin)
}

/** Changes the fields given and keeps the others; gives the page's settings as they now stand. */
export async function changeTrackingPage(
  rt: SettingsRuntime,
  account: AccountDoc,
  body: z.output<typeof trackingPageBody>,
  origin: Origin,
) {
  const tracking_page = { ...trackingPageOf(account), ...body }
  const { position } = await update(rt, account, { tracking_page }, origin)
  return { position, tracking_page }
}

/** Turns a type on or off, or sets its channels; gives the account's fields as they now stand. */
export async function changeNotificationType(
  rt: SettingsRuntime,
  account: AccountDoc,
  slug: NotificationSlug,
  body: z.output<typeof notificationTypeBody>,
  origin: Origin,
) {
  const disabled = new Set(account.disabled_notification_types ?? [])
  if (body.enabled === true) disabled.delete(slug)
  if (body.enabled === false) disabled.add(slug)
  const changes = {
    disabled_notification_types: notificationSlugs.filter((s) => disabled.has(s)),
    ...(body.channels && { notification_channels: { ...account.notification_channels, [slug]: body.channels } }),
  }
  const { position } = await update(rt, account, changes, origin)
  return { position, account: { ...account, ...changes } }
}
