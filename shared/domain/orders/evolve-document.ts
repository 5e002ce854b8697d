import { assertNever, type EventData } from '../events/index.ts'
import { initialFulfillmentFields, initialOrderFields, initialTrackerFields } from './state.ts'
import type { OrderEvent } from '../events/index.ts'
import type { DelayStatus } from '../events/order-events.ts'

import { expandAddress, expandedChanges, type Notification } from '../events/resources.ts'
import type { CarrierEventDoc, FulfillmentDoc, OrderDoc, TrackerDoc } from './document.ts'
import { type PayloadEvent, payloadStatusAfter } from '../notifications/payload-outcomes.ts'

/** Folds one order event into the order document. Pure: time and ids come from the event. */
export function evolveOrder(order: OrderDoc | undefined, event: OrderEvent): OrderDoc {
  if (event.type === 'OrderCreated') return { ...newOrder(event.data), ...expandedChanges(event.data.changes) }
  if (!order) throw new Error(`${event.type} before OrderCreated`)
  // Each event copies the order once: a batch folds thousands of events, on
  // the write side and again in the projector.
  const at = event.data.at
  switch (event.type) {
    case 'OrderUpdated':
      return { ...order, updated_at: at, ...expandedChanges(event.data.changes) }
    case 'FulfillmentCreated':
      return withFulfillment(order, event.data, [])
    case 'FulfillmentUpdated': {
      const { fulfillment_id, changes } = event.data
      return mapFulfillments(order, at, (f) =>
        f.id === fulfillment_id ? { ...f, ...expandedChanges(changes), updated_at: at } : f,
      )
    }
    case 'TrackerCreated': {
      const tracker = evolveTracker(undefined, event)
      const { fulfillment } = event.data
      if (fulfillment)
        return withFulfillment(order, { fulfillment_id: tracker.fulfillment_id, ...fulfillment, at }, [tracker])
      return mapFulfillments(order, at, (f) =>
        f.id === tracker.fulfillment_id ? { ...f, trackers: [...f.trackers, tracker] } : f,
      )
    }
    case 'TrackerUpdated':
    case 'TrackingEventRecorded':
    case 'TrackerStatusChanged':
    case 'NotificationBuilt':
    case 'NotificationPayloadDispatched':
    case 'NotificationPayloadFailed':
    case 'NotificationPayloadReported': {
      if (!isTrackerEvent(event))
        return { ...order, updated_at: at, notifications: withNotification(order.notifications, event) }
      const id = event.data.tracker_id
      return mapFulfillments(order, at, (f) =>
        f.trackers.some((t) => t.id === id)
          ? { ...f, trackers: f.trackers.map((t) => (t.id === id ? evolveTracker(t, event) : t)) }
          : f,
      )
    }
    case 'TrackerDelayChanged': {
      const { tracker_id, delay } = event.data
      return mapFulfillments(order, at, (f) =>
        f.trackers.some((t) => t.id === tracker_id)
          ? {
              ...f,
              trackers: f.trackers.map((t) =>
                t.id === tracker_id
                  ? {
                      ...t,
                      delay,
                      delay_handled: null,
                      // A delay that was dealt with and changed since (a new one) needs dealing with again.
                      delay_reopened: delay !== null && (Boolean(t.delay_handled) || t.delay_reopened === true),
                      updated_at: at,
                    }
                  : t,
              ),
            }
          : f,
      )
    }
    case 'TrackerDelayHandled':
    case 'TrackerDelayReopened': {
      // The console's note, not a change of the tracker resource: no updated_at, no webhook.
      const { tracker_id } = event.data
      const handled =
        event.type === 'TrackerDelayHandled'
          ? {
              by: event.data.by,
              at,
              ...(event.data.outcome ? { outcome: event.data.outcome } : {}),
              ...(event.data.note ? { note: event.data.note } : {}),
            }
          : null
      return {
        ...order,
        fulfillments: order.fulfillments.map((f) =>
          f.trackers.some((t) => t.id === tracker_id)
            ? {
                ...f,
                trackers: f.trackers.map((t) =>
                  t.id === tracker_id ? { ...t, delay_handled: handled, delay_reopened: handled === null } : t,
                ),
              }
            : f,
        ),
      }
    }
    case 'TrackerDelayChecked':
    case 'TrackerPolled':
      // Polling's and the delay sweep's own bookkeeping: the trackers index keeps it, the order shows nothing of it.
      return order
    case 'TrackingLinkRotated':
      // Not a change of the order resource: no `updated_at`, no webhook; the tracking page reads it.
      return { ...order, tracking_link_id: event.data.link_id }
    default:
      return assertNever(event)
  }
}

type NotificationEvent = PayloadEvent

/** A notification built, or a payload's outcome or delivery report, on the list it belongs to. */
function withNotification(notifications: readonly Notification[], event: NotificationEvent): Notification[] {
  if (event.type === 'NotificationBuilt') return [...notifications, event.data.notification]
  const { notification_id, payload_id } = event.data
  const status = payloadStatusAfter(event)
  const error = 'error' in event.data ? (event.data.error ?? null) : null
  const outcome = { status, dispatched: status !== 'failed', error }
  return notifications.map((n) =>
    n.id === notification_id
      ? {
          ...n,
          notification_payloads: n.notification_payloads.map((p) => (p.id === payload_id ? { ...p, ...outcome } : p)),
        }
      : n,
  )
}

export const trackerEventTypes = [
  'TrackerCreated',
  'TrackerUpdated',
  'TrackingEventRecorded',
  'TrackerStatusChanged',
  'NotificationBuilt',
  'NotificationPayloadDispatched',
  'NotificationPayloadReported',
  'NotificationPayloadFailed',
] as const satisfies OrderEvent['type'][]
/** The events of one tracker: its own, and the notifications built on it (the others are the order's). */
export type TrackerEvent = Extract<OrderEvent, { type: (typeof trackerEventTypes)[number] }> & {
  data: { tracker_id: number }
}

const trackerEventTypeSet: ReadonlySet<string> = new Set(trackerEventTypes)
export const isTrackerEvent = (event: { type: string; data: unknown }): event is TrackerEvent =>
  trackerEventTypeSet.has(event.type) && typeof (event.data as { tracker_id?: unknown }).tracker_id === 'number'

/** Folds a tracker's own events: the trackers read model uses it alone, the order document through evolveOrder. */
export function evolveTracker(tracker: TrackerDoc | undefined, event: TrackerEvent): TrackerDoc {
  if (event.type === 'TrackerCreated') return { ...newTracker(event.data), ...event.data.changes }
  if (!tracker) throw new Error(`${event.type} before TrackerCreated`)
  const updated_at = event.data.at
  switch (event.type) {
    case 'TrackerUpdated':
      return { ...tracker, ...event.data.changes, updated_at }
    case 'TrackingEventRecorded':
      return { ...tracker, events: withEvent(tracker.events, carrierEventDoc(event.data.event)), updated_at }
    case 'TrackerStatusChanged':
      return { ...tracker, delivery_status_code: event.data.to, updated_at }
    case 'NotificationBuilt':
    case 'NotificationPayloadDispatched':
    case 'NotificationPayloadFailed':
    case 'NotificationPayloadReported':
      return { ...tracker, notifications: withNotification(tracker.notifications, event), updated_at }
    default:
      return assertNever(event)
  }
}

const carrierEventDoc = (e: EventData<'TrackingEventRecorded'>['event']): CarrierEventDoc => ({
  id: e.id,
  event_type_code: e.event_type_code,
  happened_at: e.happened_at,
  message: e.message,
  raw: e.raw,
  messages: e.messages,
  address: e.address && expandAddress(e.address),
})

/** Newest `happened_at` first; of two at the same time, the later arrival first. */
function withEvent(events: readonly CarrierEventDoc[], event: CarrierEventDoc): CarrierEventDoc[] {
  const at = events.findIndex((e) => e.happened_at <= event.happened_at)
  return at < 0 ? [...events, event] : [...events.slice(0, at), event, ...events.slice(at)]
}

const mapFulfillments = (order: OrderDoc, at: number, change: (f: FulfillmentDoc) => FulfillmentDoc): OrderDoc => ({
  ...order,
  updated_at: at,
  fulfillments: order.fulfillments.map(change),
})

export const foldOrder = (events: readonly OrderEvent[], from?: OrderDoc) =>
  events.reduce<OrderDoc | undefined>(evolveOrder, from)

/* What a creation event makes before its first details apply: the domain's defaults, and empty lists. */

export const newOrder = (d: Omit<EventData<'OrderCreated'>, 'changes'>): OrderDoc => ({
  id: d.order_id,
  uuid: d.uuid,
  created_at: d.at,
  updated_at: d.at,
  merchant_id: d.merchant_id,
  order_number: d.order_number,
  ...initialOrderFields,
  fulfillments: [],
  line_items: [],
  notifications: [],
})

function withFulfillment(order: OrderDoc, created: EventData<'FulfillmentCreated'>, trackers: TrackerDoc[]): OrderDoc {
  const fulfillment = { ...newFulfillment(created), ...expandedChanges(created.changes), trackers }
  return { ...order, updated_at: created.at, fulfillments: [...order.fulfillments, fulfillment] }
}

export const newFulfillment = (d: Omit<EventData<'FulfillmentCreated'>, 'changes'>): FulfillmentDoc => ({
  id: d.fulfillment_id,
  uuid: d.uuid,
  created_at: d.at,
  updated_at: d.at,
  fulfillment_number: d.fulfillment_number,
  merchant_id: d.merchant_id,
  ...initialFulfillmentFields(d.status_code),
  line_items: [],
  trackers: [],
  notifications: [],
})

export const newTracker = (d: Omit<EventData<'TrackerCreated'>, 'changes'>): TrackerDoc => ({
  id: d.tracker_id,
  uuid: d.uuid,
  fulfillment_id: d.fulfillment_id,
  created_at: d.at,
  updated_at: d.at,
  tracking_number: d.tracking_number,
  ...initialTrackerFields,
  events: [],
  notifications: [],
  line_items: [],
  claims: [],
  delay: null,
})

/** The most behind of an order's parcels: late, then stalled, then at risk; null when none is. */
export function orderDelayStatus(order: OrderDoc): DelayStatus | null {
  let worst: DelayStatus | null = null
  for (const f of order.fulfillments)
    for (const t of f.trackers) {
      const status = t.delay?.status
      if (status && (worst === null || SEVERITY.indexOf(status) < SEVERITY.indexOf(worst))) worst = status
    }
  return worst
}
const SEVERITY: readonly DelayStatus[] = ['late', 'stalled', 'at_risk']
