import type { App } from '../shared/http/server.ts'
import type { Runtime } from '../shared/runtime.ts'
import { trackerRoutes } from './trackers/routes.ts'

/** The command role: every write route. */
export function commandApi(app: App, rt: Runtime) {
  trackerRoutes(app, rt)
}
