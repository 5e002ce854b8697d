import type { ChannelSettings, NotificationChannel } from '../vocabulary/channels.ts'
import type { NotificationSlug } from './types.ts'

/** The types an SMS goes with unless the account says otherwise: the moments a customer must act on. */
export const SMS_BY_DEFAULT: ReadonlySet<string> = new Set([
  'out_for_delivery',
  'available_for_pickup',
  'failed_attempt',
  'delivered',
])

export const channelsOf = (slug: string, settings: ChannelSettings | undefined): readonly NotificationChannel[] =>
  settings?.[slug] ?? (SMS_BY_DEFAULT.has(slug) ? ['email', 'sms'] : ['email'])

/** What a decider needs to build an account's notifications: the types off, the channels, whether SMS is on. */
export interface NotificationPreferences {
  disabled?: readonly string[]
  channels?: ChannelSettings
  /** Whether the service sends SMS at all (a provider is configured). */
  sms: boolean
}

/** The channels a notification of this type goes out on, for this account and service. */
export const channelsFor = (slug: NotificationSlug, preferences: NotificationPreferences | undefined) =>
  channelsOf(slug, preferences?.channels).filter((c) => c === 'email' || preferences?.sms)
