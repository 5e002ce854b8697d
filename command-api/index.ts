import type { App } from '../shared/infra/http/server.ts'
import type { JobQueue } from '../shared/infra/jobs/queue.ts'
import type { PollQueues } from '../reactions/polls/poller.ts'
import type { DeliveryQueue } from '../reactions/webhooks/delivery-queue.ts'
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

/** The queues the write routes hand work to. */
export interface CommandQueues {
  jobs: JobQueue
  polls?: PollQueues
  deliveries?: DeliveryQueue
}

/** The command role: every write route. */
export function commandApi(app: App, rt: Runtime, { jobs: queue, polls = new Map(), deliveries }: CommandQueues) {
  accountWriteRoutes(app, rt)
  trackerWriteRoutes(app, rt, polls)
  orderWriteRoutes(app, rt, queue)
  pickupPointWriteRoutes(app, rt, queue)
  carrierServiceWriteRoutes(app, rt)
  webhookEndpointWriteRoutes(app, rt, queue, deliveries)
  connectionWriteRoutes(app, rt, queue)
  storeWebhookRoutes(app, rt)
  smsWriteRoutes(app, rt)
}
