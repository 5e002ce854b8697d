import { timingSafeEqual } from 'node:crypto'
import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { FastifyAdapter } from '@bull-board/fastify'
import type { Queue } from 'bullmq'
import { ShiplogError } from '../../domain/errors.ts'
import { handleError } from './errors.ts'
import type { App } from './server.ts'

export const DASHBOARD_PATH = '/admin/queues'

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The BullMQ dashboard (bull-board) for operators, at /admin/queues, behind
 * `Authorization: Bearer <SHIPLOG_ADMIN_TOKEN>`; off when no token is set.
 * Merchants' API keys do not open it, nor appear in the API reference.
 */
export async function queueDashboard(app: App, queues: readonly Queue[], token: string | undefined) {
  if (!token) return
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'none' }
      route.schema = { ...route.schema, hide: true }
    })
    // Answered here: bull-board's own error handler would make a refusal a 500.
    scope.addHook('onRequest', async (request, reply) => {
      const given = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]
      if (given && sameToken(given, token)) return
      const refused = new ShiplogError(
        'SHIPLOG_ERR_UNAUTHORIZED',
        'The queue dashboard needs Authorization: Bearer <SHIPLOG_ADMIN_TOKEN>',
      )
      return handleError(refused, request, reply)
    })
    const adapter = new FastifyAdapter()
    createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter })
    adapter.setBasePath(DASHBOARD_PATH)
    await scope.register(adapter.registerPlugin(), { prefix: DASHBOARD_PATH })
  })
}
