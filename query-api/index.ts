import type { App } from '../shared/http/server.ts'
import type { Runtime } from '../shared/runtime.ts'
import { orderRoutes } from './orders/routes.ts'
import { trackerRoutes } from './trackers/routes.ts'

/** The query role: every read route. */
export function queryApi(app: App, rt: Runtime) {
  orderRoutes(app, rt)
  trackerRoutes(app, rt)
}
