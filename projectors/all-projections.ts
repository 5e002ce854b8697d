import { deliveryStatsProjection } from './deliveries/delivery-stats.ts'
import type { SmsRecipientEvent } from '../shared/domain/notifications/sms-recipients.ts'
import { pickupPlace } from '../shared/domain/pickup-points/pickup-point.ts'
import type { AccountEvent } from '../shared/domain/accounts/account.ts'
import { evolveUserState, type UserEvent, type UserState } from '../shared/domain/users/user.ts'
import {
  type ConnectionEvent,
  type ConnectionState,
  evolveConnection,
} from '../shared/domain/connections/connection.ts'
import {
  evolveStoreUpdate,
  type StoreUpdateEvent,
  type StoreUpdateState,
} from '../shared/domain/connections/store-updates.ts'
import { evolveAccount, type AccountDoc } from './accounts/account.ts'
import type { RecordedEvent } from '../shared/infra/event-store/port.ts'
import {
  accountEventTypes,
  carrierServiceEventTypes,
  jobEventTypes,
  orderEventTypes,
  pickupPointEventTypes,
  smsRecipientEventTypes,
  userEventTypes,
  webhookEndpointEventTypes,
  webhookMessageEventTypes,
} from '../shared/domain/events/index.ts'
import type { WebhookEndpointEvent } from '../shared/domain/webhooks/endpoint.ts'
import { type MessageOf, messageEventTypes, messageOf } from '../shared/domain/webhooks/event-messages.ts'
import type { WebhookMessageType } from '../shared/domain/events/webhook-events.ts'
import type { DomainEvent } from '../shared/domain/events/index.ts'
import type { WebhookMessageEvent } from '../shared/domain/webhooks/message.ts'
import { evolveWebhookDelivery, type WebhookDeliveryDoc } from './webhooks/delivery.ts'
import { evolveWebhookEndpoint, type WebhookEndpointDoc } from './webhooks/endpoint.ts'
import { type RecordedDomainEvent, sameAppend } from '../shared/infra/event-store/recorded.ts'
import { evolveCarrierService, type CarrierServiceDoc } from './carrier-services/carrier-service.ts'
import { jobIdOf, type JobEvent } from '../shared/domain/jobs/job.ts'
import { evolveJob, resultItemsJson, type JobDoc, type JobResultsDoc } from './jobs/job.ts'
import { evolvePickupPoint, type PickupPointDoc } from './pickup-points/pickup-point.ts'
import type { OrderDoc } from '../shared/domain/orders/document.ts'
import { changesPayload, evolvePayload, type PayloadDoc, payloadKey } from './notifications/payload-document.ts'
import { isPayloadEvent, type PayloadEvent } from '../shared/domain/notifications/payload-outcomes.ts'
import { evolveNotification, type NotificationDoc } from './notifications/notification.ts'
import {
  evolveTrackerIndex,
  movesTrackerIndex,
  type TrackerIndexDoc,
  type TrackerIndexEvent,
} from './orders/tracker-index.ts'
import type { OrderEvent } from '../shared/domain/events/index.ts'
import { evolveOrder, orderDelayStatus } from '../shared/domain/orders/evolve-document.ts'
import { collections, ORDER_FULL_VIEW } from '../shared/infra/read-store/collections.ts'
import { Expansion, orderExpandPaths } from './resources/expansion.ts'
import { renderOrder } from './resources/render.ts'
import { documentProjection, type Projection } from './document-projection.ts'

type Recorded<E extends { type: string }> = Extract<RecordedDomainEvent, { type: E['type'] }>

/** Every projection asks this of every event of the log: a set answers without scanning the list. */
const isOneOf = <E extends RecordedEvent>(types: readonly string[]) => {
  const set = new Set(types)
  return (event: RecordedEvent): event is E => set.has(event.type)
}

export const accountsProjection = documentProjection<AccountDoc, Recorded<AccountEvent>>({
  name: 'accounts',
  collection: collections.accounts.name,
  handles: isOneOf(accountEventTypes),
  evolve: (doc, event) => evolveAccount(doc, event as AccountEvent),
  id: (doc) => doc.id,
  fields: (doc) => ({ private_key_hash: doc.private_key_hash, public_key_hash: doc.public_key_hash }),
})

const fullOrder = Expansion.full(orderExpandPaths)
/** The events that may change an order's indexed fields (its e-mail, number and dates): the others are appended. */
const changesOrderFields: ReadonlySet<string> = new Set([
  'OrderCreated',
  'OrderUpdated',
  'TrackerDelayChanged',
] satisfies OrderEvent['type'][])

export const ordersProjection = documentProjection<OrderDoc, Recorded<OrderEvent>>({
  name: 'orders',
  collection: collections.orders.name,
  handles: isOneOf(orderEventTypes),
  evolve: (doc, event) => evolveOrder(doc, event as OrderEvent),
  id: (doc) => doc.id,
  fields: (doc) => ({
    // E-mail addresses compare without case: the index keeps them in lower case, as the filter asks.
    email: doc.email?.toLowerCase() ?? null,
    order_number: doc.order_number,
    created_at: doc.created_at,
    ordered_at: doc.ordered_at,
    delay_status: orderDelayStatus(doc),
  }),
  views: (doc) => ({ [ORDER_FULL_VIEW]: JSON.stringify(renderOrder(doc, fullOrder)) }),
  viewsWhenIdle: collections.orders.viewsWhenIdle,
  appends: { when: (event) => !changesOrderFields.has(event.type), max: 24 },
})

/** The index of trackers (source key `<order stream>#<tracker id>`) for GET /v2/trackers and the poller; each lives in its order's document. */
export const trackersProjection = documentProjection<TrackerIndexDoc, Recorded<TrackerIndexEvent>>({
  name: 'trackers',
  collection: collections.trackers.name,
  handles: (event): event is Recorded<TrackerIndexEvent> => movesTrackerIndex(event),
  keyOf: (event) => `${event.stream}#${event.data.tracker_id}`,
  startsDocument: (event) => event.type === 'TrackerCreated',
  evolve: (doc, event) => evolveTrackerIndex(doc, event as TrackerIndexEvent),
  id: (doc) => doc.id,
  fields: (doc) => ({
    tracking_number: doc.tracking_number,
    delivery_status_code: doc.delivery_status_code,
    next_poll_at: doc.poll?.next_poll_at ?? null,
    delay_status: doc.delay_status ?? null,
    delay_check_at: doc.delay_check_at ?? null,
    carrier_code: doc.carrier_code ?? null,
    delay_open: doc.delay_status && !doc.delay_handled ? 1 : null,
  }),
})

export const jobsProjection = documentProjection<JobDoc, Recorded<JobEvent>>({
  name: 'jobs',
  collection: collections.jobs.name,
  handles: isOneOf(jobEventTypes),
  evolve: (doc, event) => evolveJob(doc, event as JobEvent),
  id: (doc) => doc.id,
  fields: (doc) => ({ status: doc.status }),
})

/** Each chunk of a job's results as its own document, so a job of 100,000 rows never rewrites one huge document. */
export const jobResultsProjection = documentProjection<JobResultsDoc, Recorded<{ type: 'JobItemsProcessed' }>>({
  name: 'job_results',
  collection: collections.job_results.name,
  handles: isOneOf(['JobItemsProcessed']),
  keyOf: (event) => `${event.stream}#${event.data.chunk_id}`,
  startsDocument: () => true,
  evolve: (_doc, event) => ({ id: event.data.chunk_id, job_id: jobIdOf(event.stream), results: event.data.results }),
  id: (doc) => doc.id,
  fields: (doc) => ({ job_id: doc.job_id }),
  views: (doc) => ({ results: resultItemsJson(doc.results) }),
})

export const pickupPointsProjection = documentProjection<PickupPointDoc, Recorded<{ type: 'PickupPointImported' }>>({
  name: 'pickup_points',
  collection: collections.pickup_points.name,
  handles: isOneOf(pickupPointEventTypes),
  evolve: (doc, event) => evolvePickupPoint(doc, event.data),
  id: (doc) => doc.id,
  fields: (doc) => ({ merchant_id: doc.merchant_id, place: pickupPlace(doc.country_code, doc.postal_code) }),
})

export const carrierServicesProjection = documentProjection<
  CarrierServiceDoc,
  Recorded<{ type: 'CarrierServiceConfigured' }>
>({
  name: 'carrier_services',
  collection: collections.carrier_services.name,
  handles: isOneOf(carrierServiceEventTypes),
  evolve: (doc, event) => evolveCarrierService(doc, event.data),
  id: (doc) => doc.id,
  fields: (doc) => ({ carrier_code: doc.carrier_code }),
})

/** Each notification: where it is kept (its order's document) and its e-mail's status. */
export const notificationsProjection = documentProjection<NotificationDoc, Recorded<PayloadEvent>>({
  name: 'notifications',
  collection: collections.notifications.name,
  handles: (event): event is Recorded<PayloadEvent> => isPayloadEvent(event),
  keyOf: (event) => payloadKey(event.stream, event as PayloadEvent),
  startsDocument: (event) => event.type === 'NotificationBuilt',
  evolve: (doc, event) => evolveNotification(doc, event as PayloadEvent, event.stream),
  id: (doc) => doc.id,
  fields: (doc) => ({ email_status: doc.email?.status ?? null }),
})

/** The SMS payloads to customers, whether each is still to be sent, and the phone each went to. */
export const smsPayloadsProjection = documentProjection<PayloadDoc, Recorded<PayloadEvent>>({
  name: 'sms_payloads',
  collection: collections.sms_payloads.name,
  handles: (event): event is Recorded<PayloadEvent> => changesPayload('sms')(event),
  keyOf: (event) => payloadKey(event.stream, event as PayloadEvent),
  startsDocument: (event) => event.type === 'NotificationBuilt',
  evolve: (doc, event) => evolvePayload('sms', doc, event as PayloadEvent, event.stream),
  id: (doc) => doc.id,
  fields: (doc) => ({ status: doc.status, to: doc.to ?? null }),
})

/** Phone numbers that answered STOP, per account: the SMS sender sends them nothing. */
export interface SmsRecipientDoc {
  id: number
  phone: string
  opted_out: boolean
  updated_at: number
}

export const smsOptOutsProjection = documentProjection<SmsRecipientDoc, Recorded<SmsRecipientEvent>>({
  name: 'sms_opt_outs',
  collection: collections.sms_opt_outs.name,
  handles: isOneOf(smsRecipientEventTypes),
  evolve: (_doc, event) => ({
    id: event.data.recipient_id,
    phone: event.data.phone,
    opted_out: event.type === 'SmsRecipientOptedOut',
    updated_at: event.data.at,
  }),
  id: (doc) => doc.id,
  fields: () => ({}),
})

export const webhookEndpointsProjection = documentProjection<WebhookEndpointDoc, Recorded<WebhookEndpointEvent>>({
  name: 'webhook_endpoints',
  collection: collections.webhook_endpoints.name,
  handles: isOneOf(webhookEndpointEventTypes),
  evolve: (doc, event) => evolveWebhookEndpoint(doc, event as WebhookEndpointEvent),
  id: (doc) => doc.id,
  fields: (doc) => ({ status: doc.status, deleted: doc.deleted ? 1 : 0 }),
})

/** The endpoints' delivery logs: one document per message to an endpoint. */
export const webhookDeliveriesProjection = documentProjection<WebhookDeliveryDoc, Recorded<WebhookMessageEvent>>({
  name: 'webhook_deliveries',
  collection: collections.webhook_deliveries.name,
  handles: isOneOf(webhookMessageEventTypes),
  evolve: (doc, event) => evolveWebhookDelivery(doc, event as WebhookMessageEvent),
  id: (doc) => doc.delivery_id,
  fields: (doc) => ({ endpoint_id: doc.endpoint_id, status: doc.status, subject: doc.subject ?? null }),
})

/** Console users, by their stream (`user-<e-mail>`): what a session is checked against, and the lists of an account's users. */
export const usersProjection = documentProjection<UserState, Recorded<UserEvent>>({
  name: 'users',
  collection: collections.users.name,
  handles: isOneOf(userEventTypes),
  evolve: (doc, event) => evolveUserState(doc, event as UserEvent),
  id: (doc) => doc.user_id,
  fields: (doc) => ({ email: doc.deleted ? null : doc.email.toLowerCase() }),
})

export const connectionsProjection = documentProjection<ConnectionState, Recorded<ConnectionEvent>>({
  name: 'connections',
  collection: collections.connections.name,
  handles: isOneOf(['ConnectionCreated', 'ConnectionUpdated', 'ConnectionDeleted']),
  evolve: (doc, event) => evolveConnection(doc, event as ConnectionEvent),
  id: (doc) => doc.id,
  fields: () => ({}),
})

export const storeUpdatesProjection = documentProjection<StoreUpdateState, Recorded<StoreUpdateEvent>>({
  name: 'store_updates',
  collection: collections.store_updates.name,
  handles: isOneOf(['StoreUpdatePlanned', 'StoreUpdateSent', 'StoreUpdateFailed']),
  evolve: (doc, event) => evolveStoreUpdate(doc, event as StoreUpdateEvent),
  id: (doc) => doc.update_id,
  fields: (doc) => ({ state: doc.state }),
})

/** Every projection, by name. */
/** Where GET /v2/events finds an account's messages: each event of the log that a webhook message tells of. */
export interface EventIndexDoc {
  /** The event's position in the log, the message's `msg_<position>`. */
  id: number
  type: WebhookMessageType
  created_at: number
  stream: string
  tracker_id: number | null
}

const messageTypes = new Set<string>(messageEventTypes)

/** An event's entry in the account's public events, as the message it makes (`told`: the message, if any). */
const entryOf = (event: RecordedEvent, told: MessageOf): EventIndexDoc => ({
  id: Number(event.position),
  type: told.type,
  created_at: Math.floor(event.metadata.recordedAt / 1000),
  stream: event.stream,
  tracker_id: told.subject.kind === 'tracker' ? told.subject.trackerId : null,
})

/**
 * The public events of a run of the log, in its order: each event a message
 * tells of, judged among the events its command wrote with it to its stream
 * (sameAppend), so that an upsert's `order.updated` beside its
 * `order.created` is none. An append the run holds only part of is judged on
 * that part, which can only keep more: a page rendered from the streams
 * drops those.
 */
export function publicEventsOf(events: readonly RecordedEvent[]): EventIndexDoc[] {
  // messageOf reads only the events of message types in an append: the others are passed over, unread.
  const candidates = events.filter((e) => messageTypes.has(e.type))
  const entries: EventIndexDoc[] = []
  for (let first = 0, end = 0; first < candidates.length; first = end) {
    for (end = first + 1; end < candidates.length && sameAppend(candidates[end]!, candidates[first]!); ) end++
    const append = candidates.slice(first, end) as unknown as DomainEvent[]
    for (let i = first; i < end; i++) {
      const told = messageOf(append[i - first]!, append)
      if (told) entries.push(entryOf(candidates[i]!, told))
    }
  }
  return entries
}

/**
 * Indexed by type and time only: an order's or a tracker's events are found
 * by reading the order's stream, which the log already indexes. A batch's
 * events are judged among their command's first (publicEventsOf), so an
 * event made silent costs the index nothing.
 */
const indexedEvents = documentProjection<EventIndexDoc, RecordedEvent>({
  name: 'public_events',
  collection: collections.public_events.name,
  handles: (event): event is RecordedEvent => messageTypes.has(event.type),
  keyOf: (event) => event.position.toString(),
  startsDocument: () => true,
  evolve: (_doc, event) => {
    const told = messageOf(event as unknown as DomainEvent, [event as unknown as DomainEvent])
    return told && entryOf(event, told)
  },
  id: (doc) => doc.id,
  fields: (doc) => ({ type: doc.type, created_at: doc.created_at }),
})

/** The projection given only the batch's events a message tells of, however it is retargeted or split. */
const toldOnly = (projection: Projection): Projection => ({
  ...projection,
  apply(events, store) {
    const told = new Set(publicEventsOf(events).map((entry) => entry.id))
    return projection.apply(
      events.filter((e) => told.has(Number(e.position))),
      store,
    )
  },
  retarget: (name, collection) => toldOnly(projection.retarget(name, collection)),
  part: (index, count) => toldOnly(projection.part(index, count)),
})

export const eventsProjection = toldOnly(indexedEvents)

export const projections: readonly Projection[] = [
  accountsProjection,
  usersProjection,
  connectionsProjection,
  storeUpdatesProjection,
  ordersProjection,
  trackersProjection,
  jobsProjection,
  jobResultsProjection,
  pickupPointsProjection,
  carrierServicesProjection,
  notificationsProjection,
  smsPayloadsProjection,
  smsOptOutsProjection,
  deliveryStatsProjection(),
  webhookEndpointsProjection,
  webhookDeliveriesProjection,
  eventsProjection,
]
