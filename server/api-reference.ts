import type { z } from 'zod'
import type { trackingEventsBody } from '../commands/trackers/events.ts'
import type { OrderDoc } from '../shared/domain/orders/document.ts'
import { Expansion } from '../projectors/resources/expansion.ts'
import { renderOrder } from '../projectors/resources/render.ts'
import type { OperationNotes } from '../shared/infra/http/openapi.ts'
import { initialOrderFields } from '../shared/domain/orders/state.ts'

/*
 * What the API reference (/docs) says of each route beyond its schemas:
 * its name for generated clients, its resource, descriptions and examples.
 */

/** An order as GET /v2/orders answers it without expand[]: rendered by the one order renderer. */
const orderExample = renderOrder(
  {
    ...initialOrderFields,
    id: 244222860210176,
    uuid: '4f0e5c1e-7a42-4c2b-9a7a-1d9f3c1b2a10',
    order_number: 'A-1001',
    merchant_id: 'A-1001',
    email: 'jo@example.com',
    created_at: 1795000000,
    updated_at: 1795000060,
    ordered_at: 1794990000,
    fulfillments: [{ id: 244222860210177 }],
    notifications: [{ id: 244222860210179 }],
  } as OrderDoc,
  Expansion.none,
)

/** A 202 that queued a job, to follow at its Location. */
const queuedJob = (description: string) => ({
  202: { description, headers: { Location: { schema: { type: 'string' }, description: '/v2/jobs/{id}' } } },
})

/** Every operation of the API: its name for generated clients, its resource, what its schemas leave unsaid. */
export const apiNotes: Record<string, OperationNotes> = {
  'GET /healthz': { operationId: 'health', tag: 'health', summary: 'The process is up' },
  'GET /readyz': {
    operationId: 'readiness',
    tag: 'health',
    summary: 'The stores and Redis answer and the projections are caught up',
  },
  'GET /v2/account': { operationId: 'getAccount', tag: 'account' },
  'PATCH /v2/account': { operationId: 'updateAccount', tag: 'account' },
  'GET /v2/tracking_page': { operationId: 'getTrackingPage', tag: 'tracking page' },
  'PATCH /v2/tracking_page': { operationId: 'updateTrackingPage', tag: 'tracking page' },
  'GET /v2/orders/{id}/tracking_link': { operationId: 'getTrackingLink', tag: 'tracking page' },
  'POST /v2/orders/{id}/tracking_link/rotate': { operationId: 'rotateTrackingLink', tag: 'tracking page' },
  'POST /v1/sms/status': { operationId: 'reportSmsStatus', tag: 'notifications', noKey: true },
  'POST /v1/sms/inbound': { operationId: 'receiveSms', tag: 'notifications', noKey: true },
  'GET /v2/analytics/delivery_performance': { operationId: 'getDeliveryPerformance', tag: 'estimation' },
  'GET /v2/analytics/delivery_performance.csv': {
    operationId: 'getDeliveryPerformanceCsv',
    tag: 'estimation',
    responses: { 200: { description: 'The same rows as CSV, a header line first', contentType: 'text/csv' } },
  },
  'GET /v2/carrier_apis': { operationId: 'listCarrierApis', tag: 'trackers' },
  'GET /track/{token}.json': { operationId: 'getTrackingPageData', tag: 'tracking page', noKey: true },
  'GET /track': {
    operationId: 'showTrackingLookup',
    tag: 'tracking page',
    noKey: true,
    page: true,
    summary: 'The page where a customer finds their order: its number and their e-mail or delivery postcode',
    responses: {
      200: { description: 'The lookup form, in the shop’s brand when `account` names it', contentType: 'text/html' },
    },
  },
  'GET /track/lookup': {
    operationId: 'lookUpTrackingPage',
    tag: 'tracking page',
    noKey: true,
    page: true,
    summary: 'The lookup form sent: to the order’s tracking page when the number and the e-mail or postcode match',
    responses: {
      303: {
        description: 'Found: to the order’s tracking page',
        headers: { Location: { schema: { type: 'string' }, description: '/track/{token}' } },
      },
      400: { description: 'The form again: a field was left empty', contentType: 'text/html' },
      404: {
        description: 'The form again, saying no order matches (never which half was wrong)',
        contentType: 'text/html',
      },
      429: {
        description: 'Too many lookups from this address, or misses on this order number',
        contentType: 'application/json',
      },
    },
  },
  'GET /track/{token}': {
    operationId: 'showTrackingPage',
    tag: 'tracking page',
    noKey: true,
    page: true,
    summary: 'An order’s tracking page, for its customer (the token is the key)',
    responses: {
      200: {
        description: 'The page, in the customer’s language (`lang`, the order’s, the shop’s, the browser’s)',
        contentType: 'text/html',
      },
      404: { description: 'A page saying no order has this link (rotated, or never made)', contentType: 'text/html' },
    },
  },
  'GET /v2/notification_types': { operationId: 'listNotificationTypes', tag: 'notifications' },
  'PATCH /v2/notification_types/{slug}': { operationId: 'updateNotificationType', tag: 'notifications' },
  'GET /v2/notifications/{id}/preview': { operationId: 'previewNotification', tag: 'notifications' },
  'POST /v1/trackers': {
    operationId: 'upsertTrackers',
    tag: 'trackers',

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
    responses: { 201: { description: 'Every item, in request order: created or updated' } },
  },
  'GET /v2/trackers': { operationId: 'listTrackers', tag: 'trackers' },
  'POST /v2/trackers/{id}/refresh': { operationId: 'refreshTracker', tag: 'trackers' },
  'POST /v2/trackers/events': {
    operationId: 'recordTrackingEvents',
    tag: 'tracking events',

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
    responses: { 201: { description: 'What became of each event, in request order' } },
  },
  'POST /v2/orders': { operationId: 'upsertOrder', tag: 'orders' },
  'GET /v2/orders': {
    operationId: 'listOrders',
    tag: 'orders',
    responses: {
      200: {
        description: 'Orders, newest id first',
        example: { object: 'list', has_more: false, data: [orderExample] },
      },
    },
  },
  'GET /v2/orders/{id}': {
    operationId: 'getOrder',
    tag: 'orders',
    responses: { 200: { description: 'The order', example: orderExample } },
  },
  'GET /v2/orders/{id}/history': { operationId: 'getOrderHistory', tag: 'orders' },
  'POST /v2/orders/batch_create': {
    operationId: 'batchCreateOrders',
    tag: 'jobs',
    responses: queuedJob("The batch, queued as a job; poll the Location for each order's answer"),
  },
  'GET /v2/jobs/{job_id}': {
    operationId: 'getJob',
    tag: 'jobs',
    responses: { 200: { description: 'The job; results once completed' } },
  },
  'POST /v2/pickup_points/import': {
    operationId: 'importPickupPoints',
    tag: 'pickup points',
    multipartFile: true,
    responses: queuedJob('The import, queued as a job; poll the Location'),
  },
  'GET /v2/pickup_points': { operationId: 'listPickupPoints', tag: 'pickup points' },
  'PUT /v2/carrier_services/{carrier_code}/{service_code}': {
    operationId: 'configureCarrierService',
    tag: 'carrier services',
  },
  'GET /v2/carrier_services': { operationId: 'listCarrierServices', tag: 'carrier services' },
  'POST /v1/delivery_date_estimation': { operationId: 'estimateDeliveryDates', tag: 'estimation', publicKey: true },
  'POST /v2/webhook_endpoints': { operationId: 'createWebhookEndpoint', tag: 'webhooks' },
  'GET /v2/webhook_endpoints': { operationId: 'listWebhookEndpoints', tag: 'webhooks' },
  'POST /v2/connections': { operationId: 'createConnection', tag: 'connections' },
  'GET /v2/connections': { operationId: 'listConnections', tag: 'connections' },
  'GET /v2/connections/{id}': { operationId: 'getConnection', tag: 'connections' },
  'PATCH /v2/connections/{id}': { operationId: 'updateConnection', tag: 'connections' },
  'DELETE /v2/connections/{id}': { operationId: 'deleteConnection', tag: 'connections' },
  'POST /v2/connections/{id}/backfill': { operationId: 'backfillConnection', tag: 'connections' },
  'GET /v2/webhook_endpoints/{id}': { operationId: 'getWebhookEndpoint', tag: 'webhooks' },
  'PATCH /v2/webhook_endpoints/{id}': { operationId: 'updateWebhookEndpoint', tag: 'webhooks' },
  'DELETE /v2/webhook_endpoints/{id}': { operationId: 'deleteWebhookEndpoint', tag: 'webhooks' },
  'POST /v2/webhook_endpoints/{id}/rotate_secret': { operationId: 'rotateWebhookSecret', tag: 'webhooks' },
  'POST /v2/webhook_endpoints/{id}/test': { operationId: 'testWebhookEndpoint', tag: 'webhooks' },
  'POST /v2/webhook_endpoints/{id}/replay': {
    operationId: 'replayWebhookMessages',
    tag: 'webhooks',
    responses: queuedJob('The replay, queued as a job; poll the Location'),
  },
  'GET /v2/webhook_endpoints/{id}/deliveries': { operationId: 'listWebhookDeliveries', tag: 'webhooks' },
  'POST /v2/webhook_endpoints/{id}/deliveries/{delivery_id}/replay': {
    operationId: 'replayWebhookDelivery',
    tag: 'webhooks',
  },
  'GET /v2/events': { operationId: 'listEvents', tag: 'events' },
  'GET /v2/events/stream': { operationId: 'streamEvents', tag: 'events' },
  'GET /v2/events/{id}': { operationId: 'getEvent', tag: 'events' },
}
