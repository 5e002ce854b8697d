import { z } from 'zod'

/*
 * The ways a customer is told, as accounts and events name them. The
 * domain's ground floor: it imports nothing else of the domain.
 */

/** The ways a customer is told: e-mail, and SMS where the service has a provider. */
export const notificationChannels = ['email', 'sms'] as const
export type NotificationChannel = (typeof notificationChannels)[number]

export const channelList = z
  .array(z.enum(notificationChannels, { error: `must be one of ${notificationChannels.join(', ')}` }))
  .max(notificationChannels.length)
  .refine((list) => new Set(list).size === list.length, 'must name each channel once')

/** An account's channels per type; a type it never set has the defaults. */
export type ChannelSettings = Record<string, NotificationChannel[]>
