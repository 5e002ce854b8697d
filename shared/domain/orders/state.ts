import { assertNever, type EventData, type OrderEvent } from '../events/index.ts'
import {
  expandedChanges,
  type FulfillmentChanges,
  type OrderChanges,
  recordedChanges,
  storedAddressOf,
  type TrackerChanges,
} from '../events/resources.ts'
import { firstsOf, type ScansSeen, scansSeenAfter } from '../delivery/firsts.ts'
import { statusOfEvent } from '../vocabulary/tracking-codes.ts'
import { delayCheckAfter } from '../delivery/delays.ts'
import type { Delay } from '../events/order-events.ts'
import { finalStatuses } from './polling.ts'
import type { Recipient } from '../notifications/build.ts'

/*
 * The order aggregate as the write side needs it to decide: the current value
 * of every field a command may change, and who is who. Nested lists that only
 * readers need (events, line items, notifications as resources) stay out.
 */
export type OrderFields = Required<OrderChanges>
export type FulfillmentFields = Required<FulfillmentChanges>
export type TrackerFields = Required<TrackerChanges>

export interface FulfillmentState {
  id: number
  merchant_id: string
  fields: FulfillmentFields
}

/** A tracker as the write side knows it; what its scans have shown (ScansSeen) tells which of its firsts a scan is. */
export interface TrackerState extends ScansSeen {
  id: number
  fulfillment_id: number
  tracking_number: string
  fields: TrackerFields
  /** The latest `happened_at` of the events that map to a status: an older one arriving late moves nothing. */
  status_at: number | null
  /**
   * Each carrier event recorded, as its identity and id, oldest first: a
   * repeat is a duplicate. Pairs, not an object keyed by identity
   * (docs/contributing.md, objects on hot paths).
   */
  event_ids: readonly (readonly [key: string, id: number])[]
  /** Slugs of the notification types already built for the tracker. */
  notified: string[]
  created_at: number
  /** The latest `happened_at` of its carrier events; null before the first. */
  last_scan_at: number | null
  delay: Delay | null
  /** Whether the customer was told of the current delay: once per episode, from a delay set to its clearing. */
  delay_notified: boolean
  /** Whether someone of the merchant's dealt with the current delay; a new delay reopens it. */
  delay_handled: boolean
  /** When its delay is next looked at (`delayCheckAfter`); null: never. */
  delay_check_at: number | null
}

export interface OrderState {
  id: number
  order_number: string
  fields: OrderFields
  fulfillments: FulfillmentState[]
  trackers: TrackerState[]
  /** Slugs of the notification types already built for the order. */
  notified: string[]
}

/**
 * The version of the state's shape and fold, kept with each snapshot of it:
 * bump it whenever either changes, so snapshots folded by the old code are
 * ignored (tests/unit/order-state.test.ts pins the shape).
 */
export const ORDER_STATE_VERSION = 'order-state-4'

/** Order numbers are merchant strings: escaped so any of them is a safe stream name. */
export const orderStream = (accountId: number, orderNumber: string) =>
  `order-${accountId}_${encodeURIComponent(orderNumber)}`

/* What a creation event makes before its first details apply: the defaults, shared with the read model. */

export const initialOrderFields: OrderFields = {
  canceled: false,
  custom_variables: null,
  email: null,
  first_name: null,
  last_name: null,
  phone: null,
  language_code: 'en',
  mute_notifications: false,
  ordered_at: null,
  shipping_address: null,
  line_items: [],
}

export const initialFulfillmentFields = (status_code: string): FulfillmentFields => ({
  custom_variables: null,
  status_code,
  shipping_address: null,
  estimated_delivery_range_start: null,
  estimated_delivery_range_end: null,
  line_items: [],
})

export const initialTrackerFields: TrackerFields = {
  carrier: null,
  carrier_service: null,
  custom_variables: null,
  delivery_status_code: 'pending',
  displayable_expected_delivery_date: null,
  displayable_expected_delivery_datetime: null,
  displayable_expected_delivery_kind: null,
  mute_notifications: false,
  shipped_at: null,
  delivered_at: null,
  first_delivery_attempted_at: null,
  tracking_link: null,
  untracked_carrier_name: null,
  untracked_carrier_url: null,
  line_items: [],
  language_code: null,
}

/** Who an order's notifications go to: its contacts, in its tracker's language (else the order's). */
export function recipientOf(order: OrderState, trackerId?: number): Recipient {
  const tracker = order.trackers.find((t) => t.id === trackerId)
  return {
    email: order.fields.email,
    phone: order.fields.phone,
    language_code: tracker?.fields.language_code ?? order.fields.language_code,
  }
}

/**
 * A decided event emitted: recorded (`recordedEvent`), added to the events
 * to append, and folded into the order as decided so far, which it returns.
 * Every order decider emits through it.
 */
export function emitted(events: OrderEvent[], order: OrderState | undefined, decided: OrderEvent): OrderState {
  const event = recordedEvent(decided)
  events.push(event)
  return evolveOrderState(order, event)
}

/**
 * An event as it is recorded: each address in it with only its fields that
 * are set (`storedAddress`). The folds expand the addresses again.
 */
function recordedEvent(event: OrderEvent): OrderEvent {
  switch (event.type) {
    case 'OrderCreated':
    case 'OrderUpdated':
    case 'FulfillmentCreated':
    case 'FulfillmentUpdated':
      return event.data.changes.shipping_address
        ? ({ ...event, data: { ...event.data, changes: recordedChanges(event.data.changes) } } as OrderEvent)
        : event
    case 'TrackerCreated': {
      const { fulfillment } = event.data
      if (!fulfillment?.changes.shipping_address) return event
      const recorded = { ...fulfillment, changes: recordedChanges(fulfillment.changes) }
      return { ...event, data: { ...event.data, fulfillment: recorded } }
    }
    case 'TrackingEventRecorded': {
      const { address } = event.data.event
      if (!address) return event
      return { ...event, data: { ...event.data, event: { ...event.data.event, address: storedAddressOf(address) } } }
    }
    default:
      return event
  }
}

/** Folds one order event into the aggregate's state. Pure: time and ids come from the event. */
export function evolveOrderState(state: OrderState | undefined, event: OrderEvent): OrderState {
  if (event.type === 'OrderCreated') return createdOrder(event.data)
  if (!state) throw new Error(`${event.type} before OrderCreated`)
  switch (event.type) {
    case 'OrderUpdated':
      return { ...state, fields: { ...state.fields, ...expandedChanges(event.data.changes) } }
    case 'FulfillmentCreated':
      return { ...state, fulfillments: [...state.fulfillments, createdFulfillment(event.data)] }
    case 'FulfillmentUpdated': {
      const { fulfillment_id, changes } = event.data
      const fulfillments = state.fulfillments.map((f) =>
        f.id === fulfillment_id ? { ...f, fields: { ...f.fields, ...expandedChanges(changes) } } : f,
      )
      return { ...state, fulfillments }
    }
    case 'TrackerCreated': {
      const { tracker_id: id, fulfillment_id, tracking_number, changes } = event.data
      const fields = { ...initialTrackerFields, ...changes }
      const tracker: TrackerState = {
        id,
        fulfillment_id,
        tracking_number,
        fields,
        status_at: null,
        event_ids: [],
        notified: [],
        ...nothingSeen,
        created_at: event.data.at,
        last_scan_at: null,
        delay: null,
        delay_notified: false,
        delay_handled: false,
        delay_check_at: null,
      }
      tracker.delay_check_at = delayCheckAfter(null, event, false, finalStatuses.has(fields.delivery_status_code))
      const { fulfillment } = event.data
      const fulfillments = fulfillment
        ? [...state.fulfillments, createdFulfillment({ fulfillment_id, ...fulfillment })]
        : state.fulfillments
      return { ...state, fulfillments, trackers: [...state.trackers, tracker] }
    }
    case 'TrackerUpdated': {
      const { changes } = event.data
      return mapTracker(state, event.data.tracker_id, (t) =>
        withDelayCheck({ ...t, fields: { ...t.fields, ...changes } }, event),
      )
    }
    case 'TrackingEventRecorded': {
      const scan = event.data.event
      const { id, key, event_type_code, happened_at } = scan
      return mapTracker(state, event.data.tracker_id, (t) => {
        const moves = event_type_code !== null && statusOfEvent[event_type_code] !== undefined
        const status_at = moves && (t.status_at === null || happened_at >= t.status_at) ? happened_at : t.status_at
        // From the scan itself, not the event's `firsts`: events recorded before it was kept have none.
        const seen = scansSeenAfter(t, scan, firstsOf(t, scan))
        const last_scan_at = t.last_scan_at === null || happened_at > t.last_scan_at ? happened_at : t.last_scan_at
        return { ...seen, status_at, last_scan_at, event_ids: [...t.event_ids, [key, id] as const] }
      })
    }
    case 'TrackerStatusChanged': {
      const { to } = event.data
      return mapTracker(state, event.data.tracker_id, (t) =>
        withDelayCheck({ ...t, fields: { ...t.fields, delivery_status_code: to } }, event),
      )
    }
    case 'NotificationBuilt': {
      const slug = event.data.notification.notification_type.slug
      if (event.data.tracker_id === undefined) return { ...state, notified: [...state.notified, slug] }
      return mapTracker(state, event.data.tracker_id, (t) => ({
        ...t,
        notified: [...t.notified, slug],
        delay_notified: t.delay_notified || slug === 'delayed',
      }))
    }
    case 'TrackerDelayChanged': {
      const { delay } = event.data
      return mapTracker(state, event.data.tracker_id, (t) =>
        withDelayCheck(
          { ...t, delay, delay_notified: delay !== null && t.delay_notified, delay_handled: false },
          event,
        ),
      )
    }
    case 'TrackerDelayChecked':
      return mapTracker(state, event.data.tracker_id, (t) => withDelayCheck(t, event))
    case 'TrackerDelayHandled':
      return mapTracker(state, event.data.tracker_id, (t) => ({ ...t, delay_handled: true }))
    case 'TrackerDelayReopened':
      return mapTracker(state, event.data.tracker_id, (t) => ({ ...t, delay_handled: false }))
    case 'NotificationPayloadDispatched':
    case 'NotificationPayloadFailed':
    case 'NotificationPayloadReported':
    case 'TrackerPolled':
    case 'TrackingLinkRotated':
      return state
    default:
      return assertNever(event)
  }
}

/** The tracker with when its delay is next looked at, after its event. */
const withDelayCheck = (t: TrackerState, event: OrderEvent): TrackerState => ({
  ...t,
  delay_check_at: delayCheckAfter(
    t.delay_check_at,
    event,
    t.delay !== null,
    finalStatuses.has(t.fields.delivery_status_code),
  ),
})

const nothingSeen: ScansSeen = { origin_at: null, failed_attempt: false, exception: false }

const createdFulfillment = (created: Omit<EventData<'FulfillmentCreated'>, 'at'>): FulfillmentState => ({
  id: created.fulfillment_id,
  merchant_id: created.merchant_id,
  fields: { ...initialFulfillmentFields(created.status_code), ...expandedChanges(created.changes) },
})

const mapTracker = (state: OrderState, id: number, change: (t: TrackerState) => TrackerState): OrderState => ({
  ...state,
  trackers: state.trackers.map((t) => (t.id === id ? change(t) : t)),
})

const createdOrder = (d: EventData<'OrderCreated'>): OrderState => ({
  id: d.order_id,
  order_number: d.order_number,
  fields: { ...initialOrderFields, ...expandedChanges(d.changes) },
  fulfillments: [],
  trackers: [],
  notified: [],
})

export const foldOrderState = (events: readonly OrderEvent[], from?: OrderState) =>
  events.reduce<OrderState | undefined>(evolveOrderState, from)

/** The id a tracker's carrier event of this identity was recorded with; the latest, were one recorded twice. */
export const recordedEventId = (tracker: TrackerState, key: string): number | undefined =>
  tracker.event_ids.findLast(([recorded]) => recorded === key)?.[1]

export const findTracker = (order: OrderState | undefined, trackingNumber: string) =>
  order?.trackers.find((t) => t.tracking_number === trackingNumber)
