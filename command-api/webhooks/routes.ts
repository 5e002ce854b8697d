import {
  deletedWebhookEndpoint,
  jobResource,
  webhookDeliveryResource,
  webhookEndpointResource,
  webhookTest,
} from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import {
  createEndpointBody,
  replayEndpointBody,
  rotateSecretBody,
  updateEndpointBody,
  webhookEndpointCommands,
} from '../../commands/webhooks/endpoints.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import type { DeliveryQueue } from '../../reactions/webhooks/delivery-queue.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { commandRequest, pathCalled, sendCommandResponse } from '../command-request.ts'

const ENDPOINTS = '/v2/webhook_endpoints'

const anId = z.coerce
  .number()
  .int('must be an integer id')
  .positive('must be a positive id')
  .max(Number.MAX_SAFE_INTEGER)
const endpointParams = z.object({ id: anId })
const deliveryParams = z.object({ id: anId, delivery_id: anId })

export function webhookEndpointWriteRoutes(
  app: App,
  rt: Runtime,
  jobs: JobQueue,
  deliveries: DeliveryQueue | undefined,
) {
  const endpoints = webhookEndpointCommands(rt)

  app.post(
    ENDPOINTS,
    {
      schema: {
        body: createEndpointBody,
        response: { 201: webhookEndpointResource },
        summary: 'Create a webhook endpoint',
      },
    },
    async (request, reply) =>
      sendCommandResponse(reply, endpoints.revealed(await endpoints.create(commandRequest(request), request.body))),
  )

  app.patch(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        params: endpointParams,
        body: updateEndpointBody,
        response: { 200: webhookEndpointResource },
        summary: 'Change a webhook endpoint',
      },
    },
    async (request, reply) =>
      sendCommandResponse(reply, await endpoints.update(commandRequest(request), request.params.id, request.body)),
  )

  app.delete(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        params: endpointParams,
        response: { 200: deletedWebhookEndpoint },
        summary: 'Delete a webhook endpoint',
      },
    },
    async (request, reply) =>
      sendCommandResponse(reply, await endpoints.remove(commandRequest(request), request.params.id)),
  )

  app.post(
    `${ENDPOINTS}/:id/rotate_secret`,
    {
      schema: {
        params: endpointParams,
        body: rotateSecretBody,
        response: { 200: webhookEndpointResource },
        summary: "Replace a webhook endpoint's signing secret; the previous one signs beside it for expires_in seconds",
      },
    },
    async (request, reply) =>
      sendCommandResponse(
        reply,
        endpoints.revealed(await endpoints.rotateSecret(commandRequest(request), request.params.id, request.body)),
      ),
  )

  app.post(
    `${ENDPOINTS}/:id/test`,
    {
      schema: {
        params: endpointParams,
        response: { 202: webhookTest },
        summary: 'Send a webhook.test message to a webhook endpoint',
      },
    },
    async (request, reply) =>
      sendCommandResponse(reply, await endpoints.test(commandRequest(request), request.params.id)),
  )

  app.post(
    `${ENDPOINTS}/:id/replay`,
    {
      schema: {
        params: endpointParams,
        body: replayEndpointBody,
        response: { 202: jobResource },
        summary: 'Send again every message to a webhook endpoint from a point in history (a job)',
      },
    },
    async (request, reply) => {
      const { jobId, response } = await endpoints.replay(
        commandRequest(request),
        jobs,
        request.params.id,
        request.body,
        pathCalled(request),
        request.log,
      )
      return sendCommandResponse(reply.header('location', `/v2/jobs/${jobId}`), response)
    },
  )

  app.post(
    `${ENDPOINTS}/:id/deliveries/:delivery_id/replay`,
    {
      schema: {
        params: deliveryParams,
        response: { 202: webhookDeliveryResource },
        summary: 'Send one message of the delivery log again, now',
      },
    },
    async (request, reply) =>
      sendCommandResponse(
        reply,
        await endpoints.replayDelivery(
          commandRequest(request),
          deliveries,
          request.params.id,
          request.params.delivery_id,
        ),
      ),
  )
}
