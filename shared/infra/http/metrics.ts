import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { App } from './server.ts'
import type { Runtime } from '../runtime.ts'

/**
 * GET /metrics in the Prometheus format (prom-client): process metrics, request
 * durations by route and status, and each projection's lag behind the log.
 * One registry per server, so several servers in one process stay apart.
 */
export function metricsRoutes(app: App, rt: Pick<Runtime, 'eventStore' | 'readStore'>, projections: readonly string[]) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const durations = new Histogram({
    name: 'shiplog_http_request_duration_seconds',
    help: 'HTTP request durations',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  new Gauge({
    name: 'shiplog_projection_lag_positions',
    help: 'How far each projection is behind the head of the event log, in log positions',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      const head = await rt.eventStore.head()
      for (const name of projections)
        this.set({ projection: name }, Number(head - ((await rt.readStore.checkpoint(name)) ?? 0n)))
    },
  })
  app.addHook('onResponse', async (request, reply) => {
    durations.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unknown', status: reply.statusCode },
      reply.elapsedTime / 1000,
    )
  })
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  )
}
