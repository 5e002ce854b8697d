import type { ChannelSettings } from '../../domain/vocabulary/channels.ts'
import type { DelayRules, QuietHours } from '../../domain/events/account-events.ts'
import type { TrackingPageSettings } from '../../domain/tracking-page/settings.ts'

/**
 * The accounts read model's document: what every request's key is checked
 * against at the HTTP edge, so it is declared here, below the projector that
 * folds it (projectors/accounts/account.ts).
 */
export interface AccountDoc {
  id: number
  name: string
  language_code: string
  created_at: number
  updated_at: number
  private_key_hash: string
  public_key_hash: string
  deleted: boolean
  /** Absent on documents projected before notification types could be turned off. */
  disabled_notification_types?: string[]
  /** Channels per notification type the account set; a type absent has the defaults. */
  notification_channels?: ChannelSettings
  /** When no SMS is sent, in the customer's time zone; absent is the default, null none. */
  sms_quiet_hours?: QuietHours | null
  /** Absent until the account first changes them: the defaults (DEFAULT_DELAY_RULES). */
  delay_rules?: DelayRules
  /** Absent until the account first changes its tracking page. */
  tracking_page?: TrackingPageSettings
  /** The console's time zone; absent is UTC (ACCOUNT_TIME_ZONE). */
  time_zone?: string
}
