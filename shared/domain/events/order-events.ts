import { z } from 'zod'
import { deliveryStatusCodes, scanFirsts } from '../vocabulary/tracking-codes.ts'
import {
  fulfillmentChanges as fulfillmentFieldChanges,
  notification,
  orderChanges as orderFieldChanges,
  storedAddress,
  trackerChanges,
  trackingEvent as carrierEvent,
} from './resources.ts'

/**
 * Events of an order stream (`order-<accountId>_<order key>`). `at` is Unix
 * seconds. A *Created event carries the first details of what it creates, in
 * the same shape as the matching *Updated event's changes.
 */
const at = z.number().int()

/*
 * Addresses are recorded with only their fields that are set (`storedAddress`):
 * the folds expand them. Events recorded before hold every field.
 */
const recordedAddress = storedAddress.nullable().optional()
const orderChanges = orderFieldChanges.extend({ shipping_address: recordedAddress })
const fulfillmentChanges = fulfillmentFieldChanges.extend({ shipping_address: recordedAddress })
const trackingEvent = carrierEvent.extend({ address: storedAddress.nullable() })

export const delayStatuses = ['at_risk', 'late', 'stalled'] as const
export type DelayStatus = (typeof delayStatuses)[number]
/** What someone of the merchant's did about a delay, as they record it when marking it handled. */
export const delayOutcomes = ['contacted', 'reshipped', 'refunded', 'claim'] as const
export type DelayOutcome = (typeof delayOutcomes)[number]
/** The longest note kept with a handled delay, in characters. */
export const DELAY_NOTE_MAX = 500

/** Why a tracker is delayed: its promise passed, no scan for too long (or never one), or behind its lane's parcels. */
export const delayReasons = ['promise_passed', 'no_scan', 'no_first_scan', 'behind_lane'] as const
export type DelayReason = (typeof delayReasons)[number]

/** A tracker's delay, as recorded and rendered. */
export const delay = z.object({
  status: z.enum(delayStatuses),
  /** Unix seconds: when the tracker became so (the promise's end, the stall's start, the day it fell behind). */
  since: z.number().int(),
  reason: z.enum(delayReasons),
  /** The revised estimate of its delivery (YYYY-MM-DD), from its lane's parcels; null without enough of them. */
  expected_delivery_date: z.string().nullable(),
})
export type Delay = z.infer<typeof delay>

/** A new fulfillment's identity and first details. */
const fulfillmentCreated = z.object({
  fulfillment_id: z.number().int(),
  uuid: z.uuid(),
  fulfillment_number: z.string(),
  merchant_id: z.string(),
  status_code: z.string(),
  changes: fulfillmentChanges,
})

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
  FulfillmentCreated: fulfillmentCreated.extend({ at }),
  FulfillmentUpdated: z.object({ fulfillment_id: z.number().int(), changes: fulfillmentChanges, at }),
  TrackerCreated: z.object({
    tracker_id: z.number().int(),
    uuid: z.uuid(),
    fulfillment_id: z.number().int(),
    tracking_number: z.string(),
    changes: trackerChanges,
    /**
     * The fulfillment made for the tracker, when both are created with their
     * order: it needs no event of its own (`order.created` tells of it), and a
     * new tracker costs one event fewer. Its id is the tracker's `fulfillment_id`.
     */
    fulfillment: fulfillmentCreated.omit({ fulfillment_id: true }).optional(),
    at,
  }),
  TrackerUpdated: z.object({ tracker_id: z.number().int(), changes: trackerChanges, at }),
  /** A customer notification, on the tracker it tells of (`tracker_id`) or on the order (`order_placed`). */
  NotificationBuilt: z.object({ notification, tracker_id: z.number().int().optional(), at }),
  /**
   * shiplog asked the tracker's carrier for news: whether it brought any, and
   * when to ask again (the events it brought are recorded as pushed ones are).
   */
  TrackerPolled: z.object({
    tracker_id: z.number().int(),
    changed: z.boolean(),
    /** Seconds until the next poll; null: polling has stopped. */
    interval: z.number().int().nullable(),
    next_poll_at: z.number().int().nullable(),
    /** Why the poll got no answer ("answered 503", "no answer within 10 s"); absent when the carrier answered. */
    error: z.string().optional(),
    at,
  }),
  /** A notification's payload was accepted: the e-mail by the SMTP server, the SMS by its provider. */
  NotificationPayloadDispatched: z.object({
    notification_id: z.number().int(),
    payload_id: z.number().int(),
    tracker_id: z.number().int().optional(),
    /** The provider's id of the message (an SMS's), by which its delivery reports name it. */
    provider_message_id: z.string().optional(),
    /** The phone number an SMS was sent to. */
    to: z.string().optional(),
    at,
  }),
  /** The provider's last word on a dispatched SMS: it reached the phone, or could not. */
  NotificationPayloadReported: z.object({
    notification_id: z.number().int(),
    payload_id: z.number().int(),
    tracker_id: z.number().int().optional(),
    status: z.enum(['delivered', 'undelivered']),
    error: z.string().optional(),
    at,
  }),
  /** A notification's payload could not be sent: after every retry, or at once when the provider refused it. */
  NotificationPayloadFailed: z.object({
    notification_id: z.number().int(),
    payload_id: z.number().int(),
    tracker_id: z.number().int().optional(),
    error: z.string(),
    at,
  }),
  /**
   * The order's tracking page moved to a new address (`link_id` is part of its
   * token): every earlier link to it stops working.
   */
  TrackingLinkRotated: z.object({ link_id: z.number().int(), at }),
  /** A carrier event applied to one tracker; the same carrier event on two trackers is recorded on each. */
  TrackingEventRecorded: z.object({
    tracker_id: z.number().int(),
    event: trackingEvent,
    /**
     * Which of its parcel's firsts the scan is, as the order stood when it was
     * recorded: `origin`, its earliest scan naming a country so far;
     * `failed_attempt` and `incident`, its first of each. A scan that is none
     * changes none of the delivery history's facts, which then need not be read.
     * Absent from events recorded before it was kept: those are read as before.
     */
    firsts: z.array(z.enum(scanFirsts)).optional(),
    at,
  }),
  /**
   * The tracker's delivery status moved, because of the event that happened at
   * `happened_at`: the stored fact that reactions (webhooks, e-mails) follow.
   */
  TrackerStatusChanged: z.object({
    tracker_id: z.number().int(),
    from: z.enum(deliveryStatusCodes),
    to: z.enum(deliveryStatusCodes),
    happened_at: z.number().int(),
    at,
  }),
  /**
   * The tracker's delay moved: set (`late`, `stalled`, `at_risk`), changed, or
   * cleared (null); `next_check_at` is when shiplog looks at it again without
   * waiting for a scan (null: never, its story is over).
   */
  TrackerDelayChanged: z.object({
    tracker_id: z.number().int(),
    delay: delay.nullable(),
    next_check_at: z.number().int().nullable(),
    at,
  }),
  /** Someone of the merchant's (a console user, by e-mail) dealt with the tracker's current delay. */
  TrackerDelayHandled: z.object({
    tracker_id: z.number().int(),
    by: z.string(),
    at,
    /** Absent when none was given, and from events recorded before outcomes were kept. */
    outcome: z.enum(delayOutcomes).optional(),
    note: z.string().max(DELAY_NOTE_MAX).optional(),
  }),
  /** Someone of the merchant's took back their handling of the current delay (the console's Undo): it is open again. */
  TrackerDelayReopened: z.object({ tracker_id: z.number().int(), by: z.string(), at }),
  /** shiplog looked at the tracker's delay and found it unchanged: only when to look again moved. */
  TrackerDelayChecked: z.object({
    tracker_id: z.number().int(),
    next_check_at: z.number().int().nullable(),
    at,
  }),
} as const
