import { z } from 'zod'
import type { App } from './server.ts'
import type { Runtime } from '../runtime.ts'
import { waitForProjections } from '../read-store/wait-for-projections.ts'

export interface HealthChecks {
  /** Names of the projections this process (or the deployment) must keep caught up. */
  projections: readonly string[]
  /** Whether the job queue's Redis takes commands, when this process uses one: answered at once, never waited for. */
  redis?: () => boolean
}

const health = z.object({ status: z.literal('ok') })
const readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.enum(['ok', 'lagging', 'unavailable'])),
})

/** How far behind the head of the log projections may be and still count as ready. */
const CAUGHT_UP_WITHIN_MS = 2000

/** /healthz: the process is up. /readyz: the stores and Redis answer and projections are caught up. */
export function healthRoutes(app: App, rt: Pick<Runtime, 'eventStore' | 'readStore' | 'logger'>, checks: HealthChecks) {
  app.get('/healthz', { config: { auth: 'none' }, schema: { response: { 200: health } } }, async () => ({
    status: 'ok' as const,
  }))
  /** Checks that failed at the last look: a failure is logged when it starts, not at every probe. */
  const failing = new Set<string>()
  const readyzSchema = { response: { 200: readiness, 503: readiness } }
  app.get('/readyz', { config: { auth: 'none' }, schema: readyzSchema }, async (_request, reply) => {
    const results: Record<string, 'ok' | 'lagging' | 'unavailable'> = {}
    const check = async (name: string, probe: () => Promise<unknown>) => {
      try {
        const outcome = await probe()
        results[name] = outcome === false ? 'lagging' : 'ok'
        failing.delete(name)
      } catch (error) {
        // The reason stays in the log: an answer without a key names no host, address or driver message.
        if (!failing.has(name)) rt.logger.warn({ check: name, reason: (error as Error).message }, 'not ready')
        failing.add(name)
        results[name] = 'unavailable'
      }
    }
    let head = 0n
    await check('event_store', async () => (head = await rt.eventStore.head()))
    await check('read_store', () => rt.readStore.checkpoint(checks.projections[0] ?? 'accounts'))
    const redisUp = checks.redis
    if (redisUp) {
      await check('redis', async () => {
        if (!redisUp()) throw new Error('no connection to Redis')
      })
    }
    if (checks.projections.length > 0) {
      await check('projections', () => waitForProjections(rt.readStore, checks.projections, head, CAUGHT_UP_WITHIN_MS))
    }
    const ready = Object.values(results).every((r) => r === 'ok')
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks: results })
  })
}
