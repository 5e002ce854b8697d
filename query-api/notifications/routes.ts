import { notificationPreview } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import type { NotificationDoc } from '../../projectors/notifications/notification.ts'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { emailFactsOf, renderEmail } from '../../reactions/emails/render.ts'
import { findNotification } from '../../shared/domain/orders/document.ts'
import { notFound } from '../../shared/domain/errors.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { trackingPageUrlOf } from '../../shared/infra/tracking-tokens.ts'

const params = z.object({
  id: z.coerce.number().int('must be an integer id').positive('must be a positive id').max(Number.MAX_SAFE_INTEGER),
})

export function notificationReadRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/notifications/:id/preview',
    {
      schema: {
        params,
        response: { 200: notificationPreview },
        summary: 'The e-mail a notification sends: subject, text and HTML, as the customer gets them',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [collections.notifications.name, collections.orders.name])
      const location = await rt.readStore.get<NotificationDoc>(
        collections.notifications.name,
        account.id,
        request.params.id,
      )
      const order = location && (await rt.readStore.getByKey<OrderDoc>(collections.orders.name, location.doc.order_key))
      const found = order && findNotification(order.doc, request.params.id)
      if (!order || !found) throw notFound('Notification not found')
      const email = renderEmail(emailFactsOf(order.doc, found, account, trackingPageUrlOf(rt, account.id, order.doc)))
      return {
        object: 'notification_preview' as const,
        notification_id: found.notification.id,
        notification_type: found.notification.notification_type.slug,
        language_code: found.notification.language_code,
        to: order.doc.email,
        ...email,
      }
    },
  )
}
