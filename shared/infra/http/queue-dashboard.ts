import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { FastifyAdapter } from '@bull-board/fastify'
import type { Queue } from 'bullmq'
import { ShiplogError } from '../../domain/errors.ts'
import { handleError } from './error-handler.ts'
import { carriesToken } from './operator-token.ts'
import type { App } from './server.ts'

export const DASHBOARD_PATH = '/admin/queues'

/**
 * The BullMQ dashboard (bull-board) for operators, at /admin/queues, behind
 * the admin token (`SHIPLOG_ADMIN_TOKEN`, 16 characters at least): a browser
 * opens it with HTTP Basic (the token as the password), a script with
 * `Authorization: Bearer`. Off when no token is set. Merchants' API keys do
 * not open it, nor appear in the API reference.
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
      if (carriesToken(request.headers.authorization, token)) return
      const refused = new ShiplogError(
        'SHIPLOG_ERR_UNAUTHORIZED',
        'The queue dashboard needs the admin token: HTTP Basic with SHIPLOG_ADMIN_TOKEN as the password, or Authorization: Bearer <SHIPLOG_ADMIN_TOKEN>',
      )
      // A browser asks for the token once and sends it with every asset of the page.
      reply.header('www-authenticate', 'Basic realm="shiplog queues", charset="UTF-8"')
      return handleError(refused, request, reply)
    })
    // The page asks an outside host for its fonts: left out, so the dashboard works offline and tells no one it was opened.
    scope.addHook('onSend', async (_request, reply, payload) => {
      if (typeof payload !== 'string' || !String(reply.getHeader('content-type')).startsWith('text/html'))
        return payload
      return payload.replace(/<link[^>]+https:\/\/fonts\.googleapis\.com[^>]*>/g, '')
    })
    const adapter = new FastifyAdapter()
    createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter })
    adapter.setBasePath(DASHBOARD_PATH)
    await scope.register(adapter.registerPlugin(), { prefix: DASHBOARD_PATH })
  })
}
