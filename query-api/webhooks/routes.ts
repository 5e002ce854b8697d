import { listOf, webhookDeliveryResource, webhookEndpointResource } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { notFound } from '../../shared/domain/errors.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { Condition } from '../../shared/infra/read-store/port.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { renderWebhookDelivery } from '../../projectors/webhooks/delivery.ts'
import { renderWebhookEndpoint, type WebhookEndpointDoc } from '../../projectors/webhooks/endpoint.ts'
import { listPage, paginationQuery, whereEqual } from '../shared/pagination.ts'

const ENDPOINTS = collections.webhook_endpoints.name
const DELIVERIES = collections.webhook_deliveries.name

const endpointParams = z.object({
  id: z.coerce.number().int('must be an integer id').positive('must be a positive id').max(Number.MAX_SAFE_INTEGER),
})
const notDeleted: Condition = { field: 'deleted', op: 'eq', value: 0 }

export function webhookEndpointReadRoutes(app: App, rt: Runtime) {
  /** An endpoint of the caller's account; another account's, or a deleted one, is not found. */
  const endpointOf = async (accountId: number, id: number) => {
    const found = await rt.readStore.get<WebhookEndpointDoc>(ENDPOINTS, accountId, id)
    if (!found || found.doc.deleted) throw notFound('Webhook endpoint not found')
    return found.doc
  }

  app.get(
    '/v2/webhook_endpoints',
    {
      schema: {
        querystring: z.object({ status: z.enum(['enabled', 'disabled']).optional(), ...paginationQuery }),
        response: { 200: listOf(webhookEndpointResource) },
        summary: 'List webhook endpoints',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [ENDPOINTS])
      const where = [notDeleted, ...whereEqual({ status: request.query.status })]
      return listPage(rt.readStore, ENDPOINTS, account.id, request.query, where, (doc: WebhookEndpointDoc) =>
        renderWebhookEndpoint(doc),
      )
    },
  )

  app.get(
    '/v2/webhook_endpoints/:id',
    {
      schema: {
        params: endpointParams,
        response: { 200: webhookEndpointResource },
        summary: 'Retrieve a webhook endpoint',
      },
    },
    async (request) => {
      await awaitPosition(request, rt, [ENDPOINTS])
      return renderWebhookEndpoint(await endpointOf(callerOf(request).account.id, request.params.id))
    },
  )

  app.get(
    '/v2/webhook_endpoints/:id/deliveries',
    {
      schema: {
        params: endpointParams,
        querystring: z.object({ status: z.enum(['pending', 'succeeded', 'failed']).optional(), ...paginationQuery }),
        response: { 200: listOf(webhookDeliveryResource) },
        summary: "A webhook endpoint's delivery log: each message, its attempts and outcome",
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [ENDPOINTS, DELIVERIES])
      const endpoint = await endpointOf(account.id, request.params.id)
      const where: Condition[] = [
        { field: 'endpoint_id', op: 'eq', value: endpoint.id },
        ...whereEqual({ status: request.query.status }),
      ]
      return listPage(rt.readStore, DELIVERIES, account.id, request.query, where, renderWebhookDelivery)
    },
  )
}
