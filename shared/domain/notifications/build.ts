import type { Notification, NotificationPayload } from '../events/resources.ts'
import type { IdSource } from '../ids.ts'
import { isDialable } from '../contacts/phones.ts'
import { channelsFor, type NotificationPreferences } from './channels.ts'
import { type NotificationChannel, notificationChannels } from '../vocabulary/channels.ts'
import { type NotificationSlug, notificationTypes } from './types.ts'

/**
 * A notification of this type, in the customer's language, with a payload
 * per channel it goes out on that can reach the customer: an e-mail to an
 * address, an SMS to a phone number that parses (E.164). Without either the
 * notification exists, with no payload.
 */
export function buildNotification(
  slug: NotificationSlug,
  to: Recipient,
  now: number,
  ids: Pick<IdSource, 'next'>,
  preferences?: NotificationPreferences,
): Notification {
  return notificationOf(slug, to, channelsFor(slug, preferences), now, ids)
}

/** Who a notification goes to: the order's contacts, in the customer's language. */
export interface Recipient {
  email: string | null
  phone: string | null
  language_code: string
}

/** The channels a recipient can be reached on: an e-mail address, a phone number that parses (E.164). */
export const reachableChannels = (to: Recipient): NotificationChannel[] =>
  notificationChannels.filter((channel) =>
    channel === 'email' ? Boolean(to.email) : to.phone !== null && isDialable(to.phone),
  )

/** A notification of this type with a payload on each of these channels that reaches the recipient. */
export function notificationOf(
  slug: NotificationSlug,
  to: Recipient,
  channels: readonly NotificationChannel[],
  now: number,
  ids: Pick<IdSource, 'next'>,
): Notification {
  const reachable = reachableChannels(to)
  return {
    id: ids.next(),
    created_at: now,
    language_code: to.language_code,
    notification_type: { id: notificationTypes[slug].id, slug },
    notification_payloads: channels
      .filter((channel) => reachable.includes(channel))
      .map(
        (type): NotificationPayload => ({
          id: ids.next(),
          created_at: now,
          dispatched: false,
          status: 'built',
          error: null,
          type,
          support_cced: null,
        }),
      ),
  }
}

/** Whether an account's preferences leave this type on. */
export const notifies = (slug: NotificationSlug, preferences: NotificationPreferences | undefined) =>
  !preferences?.disabled?.includes(slug)
