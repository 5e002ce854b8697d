import { z } from 'zod'
import type { NotificationSlug } from './types.ts'

/** The ways a customer is told: e-mail, and SMS where the service has a provider. */
export const notificationChannels = ['email', 'sms'] as const
export type NotificationChannel = (typeof notificationChannels)[number]

/** The types an SMS goes with unless the account says otherwise: the moments a customer must act on. */
export const SMS_BY_DEFAULT: ReadonlySet<string> = new Set([
  'out_for_delivery',
  'available_for_pickup',
  'failed_attempt',
  'delivered',
])

export const channelList = z
  .array(z.enum(notificationChannels, { error: `must be one of ${notificationChannels.join(', ')}` }))
  .max(notificationChannels.length)
  .refine((list) => new Set(list).size === list.length, 'must name each channel once')

/** An account's channels per type; a type it never set has the defaults. */
export type ChannelSettings = Record<string, NotificationChannel[]>

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
