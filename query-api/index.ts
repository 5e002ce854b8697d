import { notificationSettingsOf, renderAccount } from '../projectors/accounts/account.ts'
import { renderNotificationType } from '../projectors/resources/render.ts'
import { accountResource, listOf, notificationTypeResource } from '../projectors/resources/schemas.ts'
import { listEnvelope } from './shared/pagination.ts'
import { notificationTypes } from '../shared/domain/notifications/types.ts'
import { callerOf } from '../shared/infra/http/auth.ts'
import type { App } from '../shared/infra/http/server.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import type { AttemptLimits } from '../shared/infra/attempt-limits.ts'
import { deliveryEstimationReadRoutes } from './delivery-estimation/routes.ts'
import { jobReadRoutes } from './jobs/routes.ts'
import { orderReadRoutes } from './orders/routes.ts'
import { pickupPointReadRoutes } from './pickup-points/routes.ts'
import { notificationReadRoutes } from './notifications/routes.ts'
import { trackerReadRoutes } from './trackers/routes.ts'
import { webhookEndpointReadRoutes } from './webhooks/routes.ts'
import { connectionReadRoutes } from './connections/routes.ts'
import { trackingPageReadRoutes } from './tracking-page/routes.ts'
import { analyticsReadRoutes } from './analytics/routes.ts'
import { eventReadRoutes } from './events/routes.ts'

/** The query role: every read route. */
export function queryApi(app: App, rt: Runtime, limits: AttemptLimits) {
  app.get(
    '/v2/account',
    { schema: { response: { 200: accountResource }, summary: 'The account of the key: its id, name and settings' } },
    async (request) => renderAccount(callerOf(request).account),
  )
  app.get(
    '/v2/notification_types',
    {
      schema: {
        response: { 200: listOf(notificationTypeResource) },
        summary: 'The types of customer notification, each enabled or not for the account',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      return listEnvelope(
        Object.values(notificationTypes).map((t) => renderNotificationType(t, notificationSettingsOf(account, t.slug))),
        false,
      )
    },
  )
  orderReadRoutes(app, rt)
  trackerReadRoutes(app, rt)
  jobReadRoutes(app, rt)
  pickupPointReadRoutes(app, rt)
  deliveryEstimationReadRoutes(app, rt)
  webhookEndpointReadRoutes(app, rt)
  connectionReadRoutes(app, rt)
  notificationReadRoutes(app, rt)
  trackingPageReadRoutes(app, rt, limits)
  analyticsReadRoutes(app, rt)
  eventReadRoutes(app, rt)
}
