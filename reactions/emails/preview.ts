import type { NotificationDoc } from '../../projectors/notifications/notification.ts'
import { notFound } from '../../shared/domain/errors.ts'
import { findNotification, type OrderDoc } from '../../shared/domain/orders/document.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { trackingPageUrlOf } from '../../shared/infra/tracking-tokens.ts'
import { emailFactsOf, renderEmail } from './render.ts'

/**
 * A notification of the account's e-mail, as its customer gets it, with the
 * order it belongs to: what the API's preview and the console show. Another
 * account's notification is not found.
 */
export async function emailPreview(
  rt: Pick<Runtime, 'readStore' | 'config' | 'secrets'>,
  account: AccountDoc,
  notificationId: number,
) {
  const location = await rt.readStore.get<NotificationDoc>(collections.notifications.name, account.id, notificationId)
  const order = location && (await rt.readStore.getByKey<OrderDoc>(collections.orders.name, location.doc.order_key))
  const found = order && findNotification(order.doc, notificationId)
  if (!order || !found) throw notFound('Notification not found')
  const email = renderEmail(emailFactsOf(order.doc, found, account, trackingPageUrlOf(rt, account.id, order.doc)))
  return { order: order.doc, notification: found.notification, email }
}
