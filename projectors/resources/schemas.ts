import { notificationChannels } from '../../shared/domain/vocabulary/channels.ts'
import { delayRules, quietHours } from '../../shared/domain/events/account-events.ts'
import { trackingPageSettings } from '../../shared/domain/tracking-page/settings.ts'
import { z } from 'zod'
import { delay } from '../../shared/domain/events/order-events.ts'
import { connectionPlatforms, connectionStatuses } from '../../shared/domain/events/connection-events.ts'
import { weekdays } from '../../shared/domain/events/pickup-point-events.ts'
import {
  address,
  carrier,
  carrierService,
  fulfillmentChanges,
  lineItem,
  notificationPayload,
  notificationType,
  orderChanges,
  trackerChanges,
} from '../../shared/domain/events/resources.ts'
import { carrierServiceConfig } from '../../shared/domain/events/carrier-service-events.ts'
import { pickupPointFields } from '../../shared/domain/events/pickup-point-events.ts'
import { webhookMessageTypes } from '../../shared/domain/events/webhook-events.ts'

/*
 * Every resource as the API answers it, in zod: the renderers' return types
 * come from these, and the OpenAPI document's response schemas too, so the
 * two cannot differ. Objects are closed: a field a renderer adds and this
 * file does not name fails the type-check and the live validation of the tests.
 */
const id = z.number().int()
const seconds = z.number().int().describe('Unix time, seconds')

/** A nested resource that was not expanded: its object name and id. */
const stub = <O extends string>(object: O) => z.object({ object: z.literal(object), id })
/** A nested resource: itself when its path is expanded, else its stub. */
const expandable = <O extends string, T extends z.ZodType>(object: O, full: T) => z.union([full, stub(object)])
/** A nested list (no `has_more`: it is whole), newest id first. */
const nestedList = <T extends z.ZodType>(item: T) => z.object({ object: z.literal('list'), data: z.array(item) })

/** The envelope of every index route: `data` newest id first, `has_more` when the page is not the last. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(item) })

export const addressResource = address.extend({ object: z.literal('address') }).meta({ id: 'Address' })
export const carrierResource = carrier.extend({ object: z.literal('carrier') }).meta({ id: 'Carrier' })
export const carrierServiceResource = carrierService
  .extend({ object: z.literal('carrier_service') })
  .meta({ id: 'CarrierService' })
export const lineItemResource = lineItem.extend({ object: z.literal('line_item') }).meta({ id: 'LineItem' })
export const notificationTypeResource = notificationType
  .extend({
    object: z.literal('notification_type'),
    /** The account's setting, where the account's catalogue is listed. */
    enabled: z.boolean().optional(),
    /** The channels it goes out on for the account, where the account's catalogue is listed. */
    channels: z.array(z.enum(notificationChannels)).optional(),
  })
  .meta({ id: 'NotificationType' })
export const notificationPayloadResource = notificationPayload
  .extend({ object: z.literal('notification_payload') })
  .meta({ id: 'NotificationPayload' })

export const notificationResource = z
  .object({
    object: z.literal('notification'),
    id,
    created_at: seconds,
    language_code: z.string(),
    notification_payloads: nestedList(expandable('notification_payload', notificationPayloadResource)),
    notification_type: expandable('notification_type', notificationTypeResource),
  })
  .meta({ id: 'Notification' })

export const eventResource = z
  .object({
    object: z.literal('event'),
    id,
    event_type_code: z.string().nullable(),
    happened_at: seconds,
    message: z.string(),
    raw: z.string(),
    messages: z.record(z.string(), z.string()),
    address: expandable('address', addressResource).nullable(),
  })
  .meta({ id: 'Event' })

/** The fields a tracker's, fulfillment's or order's events set: the document spreads them into the resource. */
const fieldsOf = <S extends z.ZodObject>(changes: S) => changes.required()

export const delayResource = delay
  .extend({
    since: seconds,
    expected_delivery_date: z
      .string()
      .nullable()
      .meta({ description: 'The revised delivery estimate (YYYY-MM-DD), from its lane; null without enough history' }),
  })
  .meta({ id: 'Delay' })

export const trackerResource = fieldsOf(trackerChanges)
  .omit({ carrier: true, carrier_service: true, line_items: true })
  .extend({
    object: z.literal('tracker'),
    id,
    uuid: z.string(),
    created_at: seconds,
    updated_at: seconds,
    tracking_number: z.string(),
    carrier: z.union([carrierResource, z.object({ object: z.literal('carrier'), code: z.string() })]).nullable(),
    carrier_service: carrierServiceResource.nullable(),
    events: nestedList(expandable('event', eventResource)),
    notifications: nestedList(expandable('notification', notificationResource)),
    line_items: nestedList(expandable('line_item', lineItemResource)),
    claims: nestedList(z.record(z.string(), z.unknown())),
    delay: delayResource.nullable().meta({
      description: 'null, or why the parcel is behind: late, stalled or at risk (docs/estimation.md)',
    }),
  })
  .meta({ id: 'Tracker' })

export const fulfillmentResource = fieldsOf(fulfillmentChanges)
  .omit({ shipping_address: true, line_items: true })
  .extend({
    object: z.literal('fulfillment'),
    id,
    uuid: z.string(),
    created_at: seconds,
    updated_at: seconds,
    fulfillment_number: z.string(),
    merchant_id: z.string(),
    shipping_address: expandable('address', addressResource).nullable(),
    line_items: nestedList(expandable('line_item', lineItemResource)),
    trackers: nestedList(expandable('tracker', trackerResource)),
    notifications: nestedList(expandable('notification', notificationResource)),
  })
  .meta({ id: 'Fulfillment' })

export const orderResource = fieldsOf(orderChanges)
  .omit({ shipping_address: true, line_items: true })
  .extend({
    object: z.literal('order'),
    id,
    uuid: z.string(),
    created_at: seconds,
    updated_at: seconds,
    merchant_id: z.string(),
    order_number: z.string(),
    shipping_address: expandable('address', addressResource).nullable(),
    line_items: nestedList(expandable('line_item', lineItemResource)),
    fulfillments: nestedList(expandable('fulfillment', fulfillmentResource)),
    notifications: nestedList(expandable('notification', notificationResource)),
  })
  .meta({ id: 'Order' })

export const historyEventResource = z
  .object({
    object: z.literal('history_event'),
    id: id.describe("the event's revision in the order's stream, from 1"),
    type: z.string(),
    recorded_at: seconds,
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'HistoryEvent' })

export const accountResource = z
  .object({
    object: z.literal('account'),
    id,
    name: z.string(),
    language_code: z.string(),
    sms_quiet_hours: quietHours
      .nullable()
      .meta({ description: 'No SMS goes out between these times in the customer’s time zone; null: at any hour' }),
    delay_rules: delayRules.meta({
      description:
        'stalled_after_business_days: business days without a scan before a parcel is stalled, where its lane has not taught better (1–30, default 3); notify_at_risk: whether customers are told of at_risk parcels too (default false)',
    }),
    time_zone: z.string().meta({ description: 'The IANA time zone the console shows times and days in (default UTC)' }),
    created_at: seconds,
    updated_at: seconds,
  })
  .meta({ id: 'Account' })

export const connectionResource = z
  .object({
    object: z.literal('connection'),
    id,
    platform: z.enum(connectionPlatforms),
    shop_domain: z.string().optional().meta({ description: 'Shopify: the shop’s myshopify.com domain' }),
    store_url: z.string().optional().meta({ description: 'WooCommerce: the store’s address' }),
    status: z.enum(connectionStatuses).meta({
      description: 'unauthorized: the store refused the credentials; nothing is called until they change',
    }),
    webhook_url: z.string().meta({ description: 'The address to give the store for its order webhooks' }),
    complete_when_delivered: z.boolean().meta({
      description: 'WooCommerce: set the order completed once every parcel is delivered',
    }),
    created_at: seconds,
    updated_at: seconds,
  })
  .meta({ id: 'Connection' })

/** The account's tracking page settings (GET and PATCH /v2/tracking_page). */
export const trackingPageSettingsResource = trackingPageSettings
  .extend({ object: z.literal('tracking_page') })
  .meta({ id: 'TrackingPageSettings' })

/** Where an order's tracking page is: its current link. */
export const trackingLinkResource = z
  .object({
    object: z.literal('tracking_link'),
    order_id: id,
    token: z.string().meta({ description: 'Unguessable; rotate it to revoke every earlier link' }),
    url: z.string(),
  })
  .meta({ id: 'TrackingLink' })

const jobResult = z.object({ status: z.number().int(), body: z.record(z.string(), z.unknown()) })

export const jobResource = z
  .object({
    object: z.literal('job'),
    id,
    status: z.enum(['queued', 'processing', 'completed', 'failed']),
    queued_at: seconds,
    processed_at: seconds.nullable(),
    completed_at: seconds.nullable(),
    failed_at: seconds.nullable().optional(),
    error: z.object({ message: z.string().nullable() }).optional(),
    results: z.array(jobResult).readonly().optional().describe("each item's answer, in the order sent, once completed"),
    payload: z.object({ method: z.string(), url: z.string(), body: z.record(z.string(), z.unknown()) }),
  })
  .meta({ id: 'Job' })

export const pickupPointResource = pickupPointFields
  .extend({
    object: z.literal('pickup_point'),
    id,
    created_at: seconds,
    updated_at: seconds,
  })
  .meta({ id: 'PickupPoint' })

export const carrierServiceConfigResource = carrierServiceConfig
  .extend({
    object: z.literal('carrier_service'),
    id,
    code: z.string(),
    carrier: z.object({ object: z.literal('carrier'), code: z.string() }),
    pickup_days: z.array(z.enum(weekdays)),
    delivery_days: z.array(z.enum(weekdays)),
    created_at: seconds,
    updated_at: seconds,
  })
  .meta({ id: 'CarrierServiceConfig' })

export const webhookEndpointResource = z
  .object({
    object: z.literal('webhook_endpoint'),
    id,
    url: z.string(),
    enabled_events: z.array(z.union([z.enum(webhookMessageTypes), z.literal('*')])),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    created_at: seconds,
    updated_at: seconds,
    secret: z.string().optional().describe('only in the answers that make one: create and rotate_secret'),
  })
  .meta({ id: 'WebhookEndpoint' })

export const deletedWebhookEndpoint = z
  .object({
    object: z.literal('webhook_endpoint'),
    id,
    deleted: z.literal(true),
  })
  .meta({ id: 'DeletedWebhookEndpoint' })

export const webhookDeliveryResource = z
  .object({
    object: z.literal('webhook_delivery'),
    id,
    webhook_id: z.string(),
    type: z.enum(webhookMessageTypes),
    position: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: seconds.nullable(),
    delivered_at: seconds.nullable(),
    created_at: seconds,
  })
  .meta({ id: 'WebhookDelivery' })

/** A job an order batch queued: its id, to poll at `/v2/jobs/{id}` (the Location). */
export const acceptedJobId = z.object({ job_id: id })

export const trackerRefresh = z.object({
  object: z.literal('tracker_refresh'),
  tracker_id: id,
  status: z.literal('queued'),
})

export const webhookTest = z.object({ object: z.literal('webhook_test'), endpoint_id: id })

export const notificationPreview = z
  .object({
    object: z.literal('notification_preview'),
    notification_id: id,
    notification_type: z.string(),
    language_code: z.string(),
    to: z.string().nullable(),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
  })
  .meta({ id: 'NotificationPreview' })

const deliveryDateEstimation = z.object({
  carrier_code: z.string(),
  service_code: z.string(),
  delivery_date: z.string().describe('YYYY-MM-DD'),
  safe_delivery_date: z.string().describe('YYYY-MM-DD'),
  cutoff_datetime_utc: z.string(),
  basis: z
    .enum(['history', 'configured'])
    .meta({ description: 'history: learned from the parcels delivered on the lane; configured: the transit days set' }),
  sample_size: z.number().int().nullable().meta({ description: 'The delivered parcels the history counts' }),
})

export const deliveryDateEstimations = z
  .object({
    delivery_date_estimations: z.array(deliveryDateEstimation),
    best_estimation: deliveryDateEstimation.nullable(),
  })
  .meta({ id: 'DeliveryDateEstimations' })
