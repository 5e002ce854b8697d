import { renderConnection } from '../../projectors/connections/connection.ts'
import { connectionResource, listOf } from '../../projectors/resources/schemas.ts'
import type { ConnectionState } from '../../shared/domain/connections/connection.ts'
import { notFound } from '../../shared/domain/errors.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { publicUrlOf } from '../../shared/infra/http/public-url.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { z } from 'zod'
import { listEnvelope } from '../shared/pagination.ts'

const CONNECTIONS = collections.connections.name
const params = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) })

/** An account holds a handful of stores: one page holds them all. */
const MAX_CONNECTIONS = 100

export function connectionReadRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/connections',
    { schema: { response: { 200: listOf(connectionResource) }, summary: "The account's store connections" } },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [CONNECTIONS])
      const page = await rt.readStore.find<ConnectionState>(CONNECTIONS, {
        accountId: account.id,
        limit: MAX_CONNECTIONS,
      })
      const live = page.docs.filter((d) => !d.doc.deleted)
      return listEnvelope(
        live.map((d) => renderConnection(account.id, d.doc, publicUrlOf(rt, request))),
        false,
      )
    },
  )
  app.get(
    '/v2/connections/:id',
    { schema: { params, response: { 200: connectionResource }, summary: 'A store connection' } },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [CONNECTIONS])
      const stored = await rt.readStore.get<ConnectionState>(CONNECTIONS, account.id, request.params.id)
      if (!stored || stored.doc.deleted) throw notFound('Connection not found')
      return renderConnection(account.id, stored.doc, publicUrlOf(rt, request))
    },
  )
}
