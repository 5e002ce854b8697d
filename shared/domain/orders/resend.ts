import type { OrderEvent } from '../events/index.ts'
import type { IdSource } from '../ids.ts'
import { ShiplogError, validationError } from '../errors.ts'
import { notificationOf, reachableChannels } from '../notifications/build.ts'
import type { NotificationSlug } from '../notifications/types.ts'
import type { NotificationChannel } from '../vocabulary/channels.ts'
import { type OrderState, recipientOf } from './state.ts'

/** Someone of the merchant's sends a customer a notification again, on one channel. */
export interface ResendNotification {
  /** The tracker the notification told of; none for the order's own (`order_placed`). */
  tracker_id?: number
  slug: NotificationSlug
  channel: NotificationChannel
  at: number
  ids: Pick<IdSource, 'next'>
}

/**
 * A new notification of a type already sent for the tracker (or the order),
 * with one payload on the channel asked for, to the order's contacts as they
 * are now; it is sent as any other. Refused when the type was never sent
 * there, the order or parcel is muted, or the channel cannot reach the
 * customer.
 */
export function decideNotificationResent(command: ResendNotification, order: OrderState | undefined): OrderEvent[] {
  if (!order) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Order not found')
  const tracker = command.tracker_id === undefined ? undefined : order.trackers.find((t) => t.id === command.tracker_id)
  if (command.tracker_id !== undefined && !tracker) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Tracker not found')
  if (!(tracker ?? order).notified.includes(command.slug))
    throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', `No ${command.slug} notification was sent for this parcel`)
  if (order.fields.mute_notifications || tracker?.fields.mute_notifications)
    throw new ShiplogError('SHIPLOG_ERR_CONFLICT', 'Notifications are muted for this order; unmute it to send one')
  const to = recipientOf(order, command.tracker_id)
  if (!reachableChannels(to).includes(command.channel))
    throw validationError(
      command.channel === 'email'
        ? 'channel: the order has no e-mail address'
        : 'channel: the order has no phone number an SMS can reach',
      { channel: 'cannot reach the customer' },
    )
  const notification = notificationOf(command.slug, to, [command.channel], command.at, command.ids)
  return [
    {
      type: 'NotificationBuilt',
      data: { notification, ...(tracker ? { tracker_id: tracker.id } : {}), at: command.at },
    },
  ]
}
