import { finalStatuses } from './polling.ts'
import { countryName } from '../contacts/countries.ts'
import { type ConfiguredService, estimateParcel } from '../delivery/estimate.ts'
import type { LaneQuery, LearnedTransit } from '../delivery/history.ts'
import { type Address, emptyAddress, type TrackerChanges } from '../events/resources.ts'
import type { IdSource } from '../ids.ts'
import { emitted, type OrderState, recipientOf, recordedEventId, type TrackerState } from './state.ts'
import type { OrderEvent } from '../events/index.ts'
import { buildNotification, notifies } from '../notifications/build.ts'
import type { NotificationPreferences } from '../notifications/channels.ts'
import { notificationOfStatus } from '../notifications/types.ts'
import { trackingEventKey } from './tracking.ts'
import { delayEndedBy } from './delays.ts'
import { firstsOf } from '../delivery/firsts.ts'
import {
  carrierMovements,
  type DeliveryStatusCode,
  deliveryAttempts,
  type EventTypeCode,
  statusOfEvent,
} from '../vocabulary/tracking-codes.ts'

/** One carrier event as the push API (or a carrier adapter) gives it. */
export interface CarrierEventInput {
  tracking_number: string
  /** Narrows the match to trackers of this carrier. */
  carrier_code?: string | null
  event_type_code: EventTypeCode | null
  /** Unix seconds. */
  happened_at: number
  message?: string | null
  messages?: Record<string, string> | null
  address?: {
    address1?: string | null
    city?: string | null
    zip?: string | null
    state?: string | null
    country_code?: string | null
  } | null
  raw?: string | null
  carrier_event_id?: string | null
  /** Unix seconds: the carrier's latest estimate of the delivery. */
  expected_delivery_at?: number | null
}

/** The carrier events of one request, with the id each gets if it is new (shared by every tracker it applies to). */
export interface RecordTrackingEvents {
  events: readonly CarrierEventInput[]
  eventIds: readonly number[]
  /** Unix seconds at which the events were received. */
  now: number
  ids: Pick<IdSource, 'next'>
  /** The account's configured carrier services: a tracker that ships without an expected delivery is promised one. */
  carrierServices?: readonly ConfiguredService[]
  /** What the account's delivered parcels say of a lane: the promise follows it where it has enough. */
  learned?: (lane: LaneQuery) => LearnedTransit | undefined
  /** The account's notification types off and channels, and whether the service sends SMS. */
  notifying?: NotificationPreferences
  /** The language a carrier's message is written in when the event does not say (the account's). */
  language?: string
}

/** What became of one carrier event in this order: recorded, or already there. */
export interface TrackingEventOutcome {
  index: number
  status: 'created' | 'duplicate'
  tracker_ids: number[]
  event_id: number
}

/**
 * Records carrier events on the order's trackers with that tracking number
 * (and carrier, when the event names one), and moves each tracker's status:
 * the status of the event with the latest `happened_at` that maps to one (a
 * tie goes to the later arrival), so an older scan arriving late never moves a
 * parcel back. A status that moves is recorded as TrackerStatusChanged; the
 * timestamps it implies (shipped, delivered, first attempt) and the carrier's
 * expected delivery as TrackerUpdated. An event already recorded on a tracker
 * is a duplicate and changes nothing.
 */
export function decideTrackingEvents(
  command: RecordTrackingEvents,
  current: OrderState | undefined,
): { events: OrderEvent[]; outcomes: TrackingEventOutcome[]; order: OrderState | undefined } {
  const events: OrderEvent[] = []
  const outcomes: TrackingEventOutcome[] = []
  let order = current
  const emit = (decided: OrderEvent) => {
    order = emitted(events, order, decided)
  }
  const at = command.now
  command.events.forEach((input, index) => {
    const matching = (order?.trackers ?? []).filter(
      (t) =>
        t.tracking_number === input.tracking_number &&
        (!input.carrier_code || t.fields.carrier?.code === input.carrier_code),
    )
    if (matching.length === 0) return
    let created = false
    let existingId: number | undefined
    for (const { id: trackerId } of matching) {
      const tracker = order!.trackers.find((t) => t.id === trackerId)!
      const key = trackingEventKey(input, tracker.fields.carrier?.code ?? input.carrier_code)
      const known = recordedEventId(tracker, key)
      if (known !== undefined) {
        existingId ??= known
        continue
      }
      created = true
      const event = {
        id: command.eventIds[index]!,
        key,
        event_type_code: input.event_type_code,
        happened_at: input.happened_at,
        message: input.message ?? '',
        messages: messagesOf(input, command.language),
        raw: input.raw ?? '',
        address: input.address ? eventAddress(input.address, command.ids.next()) : null,
        carrier_event_id: input.carrier_event_id ?? null,
        expected_delivery_at: input.expected_delivery_at ?? null,
      }
      const status = statusChange(tracker, input)
      const firsts = firstsOf(tracker, input)
      emit({ type: 'TrackingEventRecorded', data: { tracker_id: trackerId, event, firsts, at } })
      if (status) emit({ type: 'TrackerStatusChanged', data: { tracker_id: trackerId, ...status, at } })
      // The scan that ships a parcel says where it left from: the lane's origin.
      const origin = input.address?.country_code ?? undefined
      const changes = derivedChanges(tracker, input, (shippedAt) =>
        promisedDelivery(order!, tracker, { shippedAt, origin }, command.carrierServices ?? [], command.learned),
      )
      if (changes) emit({ type: 'TrackerUpdated', data: { tracker_id: trackerId, changes, at } })
      const ended = delayEndedBy(order!.trackers.find((t) => t.id === trackerId)!, input.happened_at, at)
      if (ended) emit(ended)
      // Built last, so the customer's e-mail tells the dates this event set.
      const notification = status && statusNotification(order!, trackerId, status.to, command, at)
      if (notification) emit({ type: 'NotificationBuilt', data: { notification, tracker_id: trackerId, at } })
    }
    const tracker_ids = matching.map((t) => t.id)
    outcomes.push(
      created
        ? { index, status: 'created', tracker_ids, event_id: command.eventIds[index]! }
        : { index, status: 'duplicate', tracker_ids, event_id: existingId! },
    )
  })
  return { events, outcomes, order }
}

/** An event's messages by language: those it gives, else its message under the language it is written in, when known. */
function messagesOf(input: CarrierEventInput, language: string | undefined): Record<string, string> {
  if (input.messages && Object.keys(input.messages).length > 0) return input.messages
  return input.message && language ? { [language.split('-')[0]!.toLowerCase()]: input.message } : {}
}

/**
 * The notification a tracker's new status builds, in the tracker's language
 * (else the order's): none when the order is canceled, the order or the
 * tracker is muted, or the account turned the type off; each type once per tracker.
 */
function statusNotification(
  order: OrderState,
  trackerId: number,
  to: DeliveryStatusCode,
  command: Pick<RecordTrackingEvents, 'notifying' | 'ids'>,
  at: number,
) {
  const tracker = order.trackers.find((t) => t.id === trackerId)!
  if (order.fields.mute_notifications || order.fields.canceled || tracker.fields.mute_notifications) return undefined
  const slug = notificationOfStatus(to, tracker.notified)
  if (!slug || !notifies(slug, command.notifying)) return undefined
  return buildNotification(slug, recipientOf(order, trackerId), at, command.ids, command.notifying)
}

/**
 * The move an event makes, when it is the tracker's newest status event and
 * says something new. A final status (delivered, returned, expired) moves only
 * to another final one: a later non-final scan is kept in the timeline and
 * moves nothing, so no customer hears "shipped" after "delivered".
 */
function statusChange(tracker: TrackerState, input: CarrierEventInput) {
  if (input.event_type_code === null) return undefined
  const to = statusOfEvent[input.event_type_code]
  if (tracker.status_at !== null && input.happened_at < tracker.status_at) return undefined
  const from = tracker.fields.delivery_status_code as typeof to
  if (finalStatuses.has(from) && !finalStatuses.has(to)) return undefined
  return to === from ? undefined : { from, to, happened_at: input.happened_at }
}

/**
 * Timestamps the event moves (only ever earlier for the firsts), and the
 * expected delivery: the carrier's estimate unless the merchant gave one, and
 * when the tracker first ships with neither, the promise of its carrier service.
 */
function derivedChanges(
  tracker: TrackerState,
  input: CarrierEventInput,
  promise: (shippedAt: number) => TrackerChanges | undefined,
): TrackerChanges | undefined {
  const { fields } = tracker
  const code = input.event_type_code
  const h = input.happened_at
  const changes: TrackerChanges = {}
  if (code && carrierMovements.has(code) && (fields.shipped_at === null || h < fields.shipped_at)) {
    changes.shipped_at = h
  }
  if (code === 'delivered' && (fields.delivered_at === null || h > fields.delivered_at)) changes.delivered_at = h
  if (
    code &&
    deliveryAttempts.has(code) &&
    (fields.first_delivery_attempted_at === null || h < fields.first_delivery_attempted_at)
  ) {
    changes.first_delivery_attempted_at = h
  }
  const expected = input.expected_delivery_at
  // The merchant's own date outranks the carrier's.
  if (
    expected !== undefined &&
    expected !== null &&
    fields.displayable_expected_delivery_kind !== 'merchant' &&
    fields.displayable_expected_delivery_datetime !== expected
  ) {
    changes.displayable_expected_delivery_date = new Date(expected * 1000).toISOString().slice(0, 10)
    changes.displayable_expected_delivery_datetime = expected
    changes.displayable_expected_delivery_kind = 'carrier'
  }
  const shippedAt = changes.shipped_at
  if (
    typeof shippedAt === 'number' &&
    fields.shipped_at === null &&
    fields.displayable_expected_delivery_kind === null &&
    changes.displayable_expected_delivery_kind === undefined
  ) {
    Object.assign(changes, promise(shippedAt))
  }
  return Object.keys(changes).length > 0 ? changes : undefined
}

/** The delivery date the tracker's carrier service promises for its lane, shipped on the day it shipped. */
function promisedDelivery(
  order: OrderState,
  tracker: TrackerState,
  { shippedAt, origin }: { shippedAt: number; origin: string | undefined },
  services: readonly ConfiguredService[],
  learned: RecordTrackingEvents['learned'],
): TrackerChanges | undefined {
  const destination =
    order.fulfillments.find((f) => f.id === tracker.fulfillment_id)?.fields.shipping_address ??
    order.fields.shipping_address
  const lane = {
    carrier_code: tracker.fields.carrier?.code,
    service_code: tracker.fields.carrier_service?.code,
    origin,
    destination: destination?.country_code ?? undefined,
    postcode: destination?.zip ?? undefined,
  }
  const estimate = estimateParcel(lane, shippedAt, services, learned)
  if (!estimate) return undefined
  return {
    displayable_expected_delivery_date: estimate.delivery_date,
    displayable_expected_delivery_datetime: null,
    displayable_expected_delivery_kind: 'promise',
  }
}

function eventAddress(a: NonNullable<CarrierEventInput['address']>, id: number): Address {
  const country_code = a.country_code ?? null
  return {
    ...emptyAddress(id),
    address1: a.address1 ?? null,
    city: a.city ?? null,
    country: country_code && countryName(country_code),
    country_code,
    state: a.state ?? null,
    zip: a.zip ?? null,
  }
}
