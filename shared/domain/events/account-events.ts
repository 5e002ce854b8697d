import { z } from 'zod'
import { timeOfDay } from '../fields.ts'
import { trackingPageSettings } from '../tracking-page/settings.ts'
import { notificationChannels } from '../vocabulary/channels.ts'

/**
 * When an account's customers get no SMS, in their time zone: a window that
 * may run over midnight (21:00 to 08:00) or not; `from` equal to `until` is none.
 */
export const quietHours = z.strictObject({ from: timeOfDay, until: timeOfDay })
export type QuietHours = z.infer<typeof quietHours>

/** When a parcel counts as stalled without its lane's lessons, and whether customers hear of `at_risk` (docs/estimation.md). */
export const delayRules = z.strictObject({
  stalled_after_business_days: z.number().int().min(1).max(30),
  notify_at_risk: z.boolean(),
})
export type DelayRules = z.infer<typeof delayRules>

/** Events of an account stream (`account-<accountId>`). Keys are only ever stored hashed. */
export const accountEvents = {
  AccountCreated: z.object({
    account_id: z.number().int(),
    name: z.string(),
    language_code: z.string(),
    private_key: z.object({ id: z.string(), hash: z.string() }),
    public_key: z.object({ id: z.string(), hash: z.string() }),
    at: z.number().int(),
  }),
  AccountUpdated: z.object({
    changes: z
      .object({
        language_code: z.string(),
        /** Slugs of the notification types the account turned off. */
        disabled_notification_types: z.array(z.string()),
        /** Every type's channels the account set, as they stand after the change. */
        notification_channels: z.record(z.string(), z.array(z.enum(notificationChannels))),
        /** When no SMS goes out, in the customer's time zone; null: at any hour. */
        sms_quiet_hours: quietHours.nullable(),
        /** The whole of the delay rules, as they stand after the change. */
        delay_rules: delayRules,
        /** The whole of the tracking page's settings, as they stand after the change. */
        tracking_page: trackingPageSettings,
        /** The IANA time zone the console shows the account's times and days in. */
        time_zone: z.string(),
      })
      .partial(),
    at: z.number().int(),
  }),
  /** New keys replace both old ones, which stop working as soon as the accounts read model has it. */
  AccountKeysRotated: z.object({
    private_key: z.object({ id: z.string(), hash: z.string() }),
    public_key: z.object({ id: z.string(), hash: z.string() }),
    at: z.number().int(),
  }),
  /** The account's keys stop working; its data stays in the log, as every event does. */
  AccountDeleted: z.object({ at: z.number().int() }),
} as const
