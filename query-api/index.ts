import { renderAccount } from '../projectors/accounts/account.ts'
import { callerOf } from '../shared/infra/http/auth.ts'
import type { App } from '../shared/infra/http/server.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { deliveryEstimationRoutes } from './delivery-estimation/routes.ts'
import { jobRoutes } from './jobs/routes.ts'
import { orderRoutes } from './orders/routes.ts'
import { pickupPointRoutes } from './pickup-points/routes.ts'
import { trackerRoutes } from './trackers/routes.ts'
import { webhookEndpointRoutes } from './webhooks/routes.ts'

/** The query role: every read route. */
export function queryApi(app: App, rt: Runtime) {
  app.get(
    '/v2/account',
    { schema: { summary: 'The account of the key: its id, name and settings' } },
    async (request) => renderAccount(callerOf(request).account),
  )
  orderRoutes(app, rt)
  trackerRoutes(app, rt)
  jobRoutes(app, rt)
  pickupPointRoutes(app, rt)
  deliveryEstimationRoutes(app, rt)
  webhookEndpointRoutes(app, rt)
}
