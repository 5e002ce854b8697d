import type { DomainEvent } from '../events/index.ts'
import type { WebhookMessageType } from '../events/webhook-events.ts'

/** What a message is about: the resource its `data.object` renders. */
export type MessageSubject =
  | { kind: 'order' }
  | { kind: 'tracker'; trackerId: number }
  | { kind: 'notification'; notificationId: number }
  | { kind: 'job' }
  | { kind: 'webhook_endpoint' }

export interface MessageOf {
  type: WebhookMessageType
  subject: MessageSubject
  /** `data.previous`: the fields the change moved, as they were. */
  previous?: Record<string, unknown>
}

/** The events of the log that may become a message (`messageOf` says which do). */
export const messageEventTypes = [
  'OrderCreated',
  'OrderUpdated',
  'FulfillmentCreated',
  'FulfillmentUpdated',
  'TrackerCreated',
  'TrackerUpdated',
  'TrackingEventRecorded',
  'TrackerStatusChanged',
  'TrackerDelayChanged',
  'NotificationPayloadDispatched',
  'JobCompleted',
  'JobFailed',
  'WebhookEndpointTested',
] as const satisfies readonly DomainEvent['type'][]

const orderChanges = new Set<DomainEvent['type']>(['OrderUpdated', 'FulfillmentCreated', 'FulfillmentUpdated'])

/**
 * The message an event of the log becomes, if any. `append` is the run of
 * events written with it to its stream by one command, so that one upsert
 * tells of each thing once: a new order is `order.created` alone, not also
 * `order.updated` for its fulfillment; a tracker created, or changed by a
 * carrier event (its dates follow its events), is not also `tracker.updated`.
 * Everything else is one message per event.
 */
export function messageOf(event: DomainEvent, append: readonly DomainEvent[]): MessageOf | undefined {
  const order = { kind: 'order' } as const
  switch (event.type) {
    case 'OrderCreated':
      return { type: 'order.created', subject: order }
    case 'OrderUpdated':
    case 'FulfillmentCreated':
    case 'FulfillmentUpdated': {
      if (append.some((e) => e.type === 'OrderCreated')) return undefined
      return append.find((e) => orderChanges.has(e.type)) === event
        ? { type: 'order.updated', subject: order }
        : undefined
    }
    case 'TrackerCreated':
      return { type: 'tracker.created', subject: { kind: 'tracker', trackerId: event.data.tracker_id } }
    case 'TrackerUpdated': {
      const trackerId = event.data.tracker_id
      const told = (e: DomainEvent) =>
        (e.type === 'TrackerCreated' || e.type === 'TrackerUpdated' || e.type === 'TrackingEventRecorded') &&
        e.data.tracker_id === trackerId
      if (append.find(told) !== event) return undefined
      return { type: 'tracker.updated', subject: { kind: 'tracker', trackerId } }
    }
    case 'TrackingEventRecorded':
      return { type: 'tracker.event_added', subject: { kind: 'tracker', trackerId: event.data.tracker_id } }
    case 'TrackerStatusChanged':
      return {
        type: 'tracker.status_changed',
        subject: { kind: 'tracker', trackerId: event.data.tracker_id },
        previous: { delivery_status_code: event.data.from },
      }
    case 'TrackerDelayChanged': {
      const subject = { kind: 'tracker', trackerId: event.data.tracker_id } as const
      return event.data.delay ? { type: 'tracker.delayed', subject } : { type: 'tracker.delay_cleared', subject }
    }
    case 'NotificationPayloadDispatched':
      return {
        type: 'notification.dispatched',
        subject: { kind: 'notification', notificationId: event.data.notification_id },
      }
    case 'JobCompleted':
      return { type: 'job.completed', subject: { kind: 'job' } }
    case 'JobFailed':
      return { type: 'job.failed', subject: { kind: 'job' } }
    case 'WebhookEndpointTested':
      return { type: 'webhook.test', subject: { kind: 'webhook_endpoint' } }
    default:
      return undefined
  }
}
