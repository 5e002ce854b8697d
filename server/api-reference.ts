import { z } from 'zod'
import type { trackingEventsBody } from '../commands/trackers/events.ts'
import { upsertTrackersResponse } from '../commands/trackers/schema.ts'
import type { OperationNotes } from '../shared/infra/http/openapi.ts'

/*
 * What the API reference (/docs) says of each route beyond its request
 * schema: the success answers, with a schema or an example each.
 */

const job = z.object({
  object: z.literal('job'),
  id: z.number().int(),
  status: z.enum(['queued', 'processing', 'completed', 'failed']),
  queued_at: z.number().int(),
  processed_at: z.number().int().nullable(),
  completed_at: z.number().int().nullable(),
  failed_at: z.number().int().optional(),
  error: z.object({ message: z.string() }).optional(),
  results: z.array(z.object({ status: z.number().int(), body: z.record(z.string(), z.unknown()) })).optional(),
  payload: z.object({ method: z.string(), url: z.string(), body: z.record(z.string(), z.unknown()) }),
})

const list = (example: unknown) => ({ object: 'list', has_more: false, data: [example] })

const trackingEventsResult = z.object({
  events: z.array(
    z.object({
      tracking_number: z.string(),
      status: z.enum(['created', 'duplicate', 'unknown_tracker']),
      tracker_ids: z.array(z.number().int()),
      event_id: z.number().int().nullable(),
    }),
  ),
})

const orderExample = {
  object: 'order',
  id: 244222860210176,
  uuid: '4f0e5c1e-7a42-4c2b-9a7a-1d9f3c1b2a10',
  order_number: 'A-1001',
  merchant_id: 'A-1001',
  email: 'jo@example.com',
  language_code: 'en',
  canceled: false,
  mute_notifications: false,
  created_at: 1795000000,
  fulfillments: { object: 'list', data: [{ object: 'fulfillment', id: 244222860210177 }] },
  line_items: { object: 'list', data: [] },
  notifications: { object: 'list', data: [{ object: 'notification', id: 244222860210179 }] },
  shipping_address: null,
}

/** Every operation of the API: its name for generated clients, its resource, the success statuses it answers. */
export const apiNotes: Record<string, OperationNotes> = {
  'GET /healthz': { operationId: 'health', tag: 'health', summary: 'The process is up' },
  'GET /readyz': {
    operationId: 'readiness',
    tag: 'health',
    summary: 'The stores and Redis answer and the projections are caught up',
  },
  'GET /v2/account': { operationId: 'getAccount', tag: 'account' },
  'PATCH /v2/account': { operationId: 'updateAccount', tag: 'account' },
  'GET /v2/notification_types': { operationId: 'listNotificationTypes', tag: 'notifications' },
  'PATCH /v2/notification_types/{slug}': { operationId: 'updateNotificationType', tag: 'notifications' },
  'GET /v2/notifications/{id}/preview': { operationId: 'previewNotification', tag: 'notifications' },
  'POST /v1/trackers': {
    operationId: 'upsertTrackers',
    tag: 'trackers',
    statuses: [201],
    requestExample: {
      trackers: [
        {
          order_number: 'A-1001',
          tracking_number: '1Z999AA10123456784',
          carrier_code: 'ups',
          email: 'jo@example.com',
          address_country: 'FR',
          expected_delivery_at: 1795000000,
        },
      ],
    },
    responses: {
      201: { description: 'Every item, in request order: created or updated', schema: upsertTrackersResponse },
    },
  },
  'GET /v2/trackers': { operationId: 'listTrackers', tag: 'trackers' },
  'POST /v2/trackers/{id}/refresh': { operationId: 'refreshTracker', tag: 'trackers', statuses: [202] },
  'POST /v2/trackers/events': {
    operationId: 'recordTrackingEvents',
    tag: 'tracking events',
    statuses: [201],
    requestExample: {
      events: [
        {
          tracking_number: '1Z999AA10123456784',
          event_type_code: 'origin_scan',
          happened_at: '2026-11-23T08:15:00Z',
          message: 'Picked up',
          address: { city: 'Lyon', country_code: 'FR' },
        },
      ],
    } satisfies z.input<typeof trackingEventsBody>,
    responses: { 201: { description: 'What became of each event, in request order', schema: trackingEventsResult } },
  },
  'POST /v2/orders': { operationId: 'upsertOrder', tag: 'orders', statuses: [200, 201] },
  'GET /v2/orders': {
    operationId: 'listOrders',
    tag: 'orders',
    responses: { 200: { description: 'Orders, newest id first', example: list(orderExample) } },
  },
  'GET /v2/orders/{id}': {
    operationId: 'getOrder',
    tag: 'orders',
    responses: { 200: { description: 'The order', example: orderExample } },
  },
  'GET /v2/orders/{id}/history': { operationId: 'getOrderHistory', tag: 'orders' },
  'POST /v2/orders/batch_create': { operationId: 'batchCreateOrders', tag: 'jobs', statuses: [202] },
  'GET /v2/jobs/{job_id}': {
    operationId: 'getJob',
    tag: 'jobs',
    responses: { 200: { description: 'The job; results once completed', schema: job } },
  },
  'POST /v2/pickup_points/import': {
    operationId: 'importPickupPoints',
    tag: 'pickup points',
    statuses: [202],
    multipartFile: true,
    responses: {
      202: {
        description: 'The import, queued as a job; poll the Location',
        schema: job,
        headers: { Location: { schema: { type: 'string' }, description: '/v2/jobs/{id}' } },
      },
    },
  },
  'GET /v2/pickup_points': { operationId: 'listPickupPoints', tag: 'pickup points' },
  'PUT /v2/carrier_services/{carrier_code}/{service_code}': {
    operationId: 'configureCarrierService',
    tag: 'carrier services',
    statuses: [200, 201],
  },
  'GET /v2/carrier_services': { operationId: 'listCarrierServices', tag: 'carrier services' },
  'POST /v1/delivery_date_estimation': { operationId: 'estimateDeliveryDates', tag: 'estimation' },
  'POST /v2/webhook_endpoints': { operationId: 'createWebhookEndpoint', tag: 'webhooks', statuses: [201] },
  'GET /v2/webhook_endpoints': { operationId: 'listWebhookEndpoints', tag: 'webhooks' },
  'GET /v2/webhook_endpoints/{id}': { operationId: 'getWebhookEndpoint', tag: 'webhooks' },
  'PATCH /v2/webhook_endpoints/{id}': { operationId: 'updateWebhookEndpoint', tag: 'webhooks' },
  'DELETE /v2/webhook_endpoints/{id}': { operationId: 'deleteWebhookEndpoint', tag: 'webhooks' },
  'POST /v2/webhook_endpoints/{id}/rotate_secret': { operationId: 'rotateWebhookSecret', tag: 'webhooks' },
  'POST /v2/webhook_endpoints/{id}/test': { operationId: 'testWebhookEndpoint', tag: 'webhooks', statuses: [202] },
  'POST /v2/webhook_endpoints/{id}/replay': { operationId: 'replayWebhookMessages', tag: 'webhooks', statuses: [202] },
  'GET /v2/webhook_endpoints/{id}/deliveries': { operationId: 'listWebhookDeliveries', tag: 'webhooks' },
}
