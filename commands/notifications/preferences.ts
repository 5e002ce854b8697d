import type { NotificationPreferences } from '../../shared/domain/notifications/channels.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { type Config, smsSettings } from '../../shared/infra/config.ts'

/** How an account's notifications are built: its types off, its channels, and SMS when the service has a provider. */
export const notificationPreferencesOf = (
  account: Pick<AccountDoc, 'disabled_notification_types' | 'notification_channels'>,
  config: Config,
): NotificationPreferences => ({
  disabled: account.disabled_notification_types,
  channels: account.notification_channels,
  sms: smsSettings(config) !== undefined,
})
