import { notificationPreview } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { emailPreview } from '../../reactions/emails/preview.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'

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
      const { order, notification, email } = await emailPreview(rt, account, request.params.id)
      return {
        object: 'notification_preview' as const,
        notification_id: notification.id,
        notification_type: notification.notification_type.slug,
        language_code: notification.language_code,
        to: order.email,
        ...email,
      }
    },
  )
}
