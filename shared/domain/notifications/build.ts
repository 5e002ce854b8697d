import type { Notification } from '../events/resources.ts'
import type { IdSource } from '../ids.ts'
import { type NotificationSlug, notificationTypes } from './types.ts'

/**
 * A notification of this type, in the customer's language, with an e-mail
 * payload to send when there is an address to send it to; without one the
 * notification exists, with no payload.
 */
export function buildNotification(
  slug: NotificationSlug,
  to: { email: string | null; language_code: string },
  now: number,
  ids: Pick<IdSource, 'next'>,
): Notification {
  return {
    id: ids.next(),
    created_at: now,
    language_code: to.language_code,
    notification_type: notificationTypes[slug],
    notification_payloads: to.email
      ? [
          {
            id: ids.next(),
            created_at: now,
            dispatched: false,
            status: 'built',
            error: null,
            type: 'email',
            support_cced: null,
          },
        ]
      : [],
  }
}
