import { z } from 'zod'
import { fulfillmentChanges, notification, orderChanges, trackerChanges } from './resources.ts'

/**
 * Events of an order stream (`order-<accountId>_<order key>`). `at` is Unix
 * seconds. A *Created event carries the first details of what it creates, in
 * the same shape as the matching *Updated event's changes.
 */
const at = z.number().int()

export const orderEvents = {
  OrderCreated: z.object({
    order_id: z.number().int(),
    uuid: z.uuid(),
    order_number: z.string(),
    merchant_id: z.string(),
    changes: orderChanges,
    at,
  }),
  OrderUpdated: z.object({ changes: orderChanges, at }),
  FulfillmentCreated: z.object({
    fulfillment_id: z.number().int(),
    uuid: z.uuid(),
    fulfillment_number: z.string(),
    merchant_id: z.string(),
    status_code: z.string(),
    changes: fulfillmentChanges,
    at,
  }),
  FulfillmentUpdated: z.object({ fulfillment_id: z.number().int(), changes: fulfillmentChanges, at }),
  TrackerCreated: z.object({
    tracker_id: z.number().int(),
    uuid: z.uuid(),
    fulfillment_id: z.number().int(),
    tracking_number: z.string(),
    changes: trackerChanges,
    at,
  }),
  TrackerUpdated: z.object({ tracker_id: z.number().int(), changes: trackerChanges, at }),
  NotificationBuilt: z.object({ notification, at }),
} as const
