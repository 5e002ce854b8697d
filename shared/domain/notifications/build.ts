import type { Notification, NotificationPayload } from '../events/resources.ts'
import type { IdSource } from '../ids.ts'
import { isDialable } from '../contacts/phones.ts'
import { channelsFor, type NotificationPreferences } from './channels.ts'
import type { NotificationChannel } from '../vocabulary/channels.ts'
import { type NotificationSlug, notificationTypes } from './types.ts'

/**
 * A notification of this type, in the customer's language, with a payload
 * per channel it goes out on that can reach the customer: an e-mail to an
 * address, an SMS to a phone number that parses (E.164). Without either the
 * notification exists, with no payload.
 */
export function buildNotification(
  slug: NotificationSlug,
  to: { email: string | null; phone: string | null; language_code: string },
  now: number,
  ids: Pick<IdSource, 'next'>,
  preferences?: NotificationPreferences,
): Notification {
  const reachable: Record<NotificationChannel, boolean> = {
    email: Boolean(to.email),
    sms: to.phone !== null && isDialable(to.phone),
  }
  return {
    id: ids.next(),
    created_at: now,
    language_code: to.language_code,
    notification_type: { id: notificationTypes[slug].id, slug },
    notification_payloads: channelsFor(slug, preferences)
      .filter((channel) => reachable[channel])
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
