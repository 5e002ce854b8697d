import type { App } from '../shared/infra/http/server.ts'
import type { JobQueue } from '../shared/infra/jobs/queue.ts'
import type { PollQueues } from '../reactions/polls/poller.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { accountWriteRoutes } from './accounts/routes.ts'
import { carrierServiceWriteRoutes } from './carrier-services/routes.ts'
import { pickupPointWriteRoutes } from './pickup-points/routes.ts'
import { orderWriteRoutes } from './orders/routes.ts'
import { trackerWriteRoutes } from './trackers/routes.ts'
import { webhookEndpointWriteRoutes } from './webhooks/routes.ts'
import { connectionWriteRoutes } from './connections/routes.ts'
import { storeWebhookRoutes } from './connections/store-webhooks.ts'
import { smsWriteRoutes } from './sms/routes.ts'

/** The command role: every write route. */
export function commandApi(app: App, rt: Runtime, queue: JobQueue, polls: PollQueues = new Map()) {
  accountWriteRoutes(app, rt)
  trackerWriteRoutes(app, rt, polls)
  orderWriteRoutes(app, rt, queue)
  pickupPointWriteRoutes(app, rt, queue)
  carrierServiceWriteRoutes(app, rt)
  webhookEndpointWriteRoutes(app, rt, queue)
  connectionWriteRoutes(app, rt, queue)
  storeWebhookRoutes(app, rt)
  smsWriteRoutes(app, rt)
}
