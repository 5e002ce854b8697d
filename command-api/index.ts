import type { App } from '../shared/infra/http/server.ts'
import type { JobQueue } from '../shared/infra/jobs/queue.ts'
import type { PollQueues } from '../projectors/reactions/polls/poller.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { accountRoutes } from './accounts/routes.ts'
import { carrierServiceRoutes } from './carrier-services/routes.ts'
import { pickupPointRoutes } from './pickup-points/routes.ts'
import { orderRoutes } from './orders/routes.ts'
import { trackerRoutes } from './trackers/routes.ts'
import { webhookEndpointRoutes } from './webhooks/routes.ts'

/** The command role: every write route. */
export function commandApi(app: App, rt: Runtime, queue: JobQueue, polls: PollQueues = new Map()) {
  accountRoutes(app, rt)
  trackerRoutes(app, rt, polls)
  orderRoutes(app, rt, queue)
  pickupPointRoutes(app, rt, queue)
  carrierServiceRoutes(app, rt)
  webhookEndpointRoutes(app, rt, queue)
}
