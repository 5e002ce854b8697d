import type { DeliveryCalendar } from '../delivery/business-days.ts'
import {
  DAY_SECONDS,
  delayVerdict,
  earlierOf,
  type LaneLessons,
  type ParcelDays,
  parcelDaysTo,
  promiseBound,
} from '../delivery/delays.ts'
import type { OrderEvent } from '../events/index.ts'
import type { DelayRules } from '../events/account-events.ts'
import { DELAY_NOTE_MAX, type Delay, type DelayOutcome } from '../events/order-events.ts'
import type { IdSource } from '../ids.ts'
import { ShiplogError, validationError } from '../errors.ts'
import { buildNotification, notifies } from '../notifications/build.ts'
import type { NotificationPreferences } from '../notifications/channels.ts'
import { finalStatuses } from './polling.ts'
import { emitted, type OrderState, recipientOf, type TrackerState } from './state.ts'

/** A tracker's lane, as the lessons of its delivered parcels are kept by. */
export interface TrackerLane {
  carrier_code: string | null
  service_code: string | null
  destination: string | null
}

/** Look at one tracker's delay now: what the sweep and the deadline jobs ask. */
export interface CheckDelay {
  tracker_id: number
  now: number
  rules: DelayRules
  /** The carrier service's delivery days (a working week for one not configured). */
  calendar: (carrier: string | null, service: string | null) => DeliveryCalendar
  /** What the tracker's lane teaches; undefined without enough delivered parcels on it. */
  lessons?: (lane: TrackerLane) => LaneLessons | undefined
  notifying?: NotificationPreferences
  ids: Pick<IdSource, 'next'>
}

/** Where a tracker goes: its fulfillment's address, else its order's. */
function destinationOf(order: OrderState, tracker: TrackerState) {
  const fulfillment = order.fulfillments.find((f) => f.id === tracker.fulfillment_id)
  const address = fulfillment?.fields.shipping_address ?? order.fields.shipping_address
  return { country: address?.country_code ?? null, state: address?.state ?? null }
}

/** The tracker's lane and the days it lives by: its destination's zone (UTC without one), its service's calendar. */
export function parcelDaysOf(
  order: OrderState,
  tracker: TrackerState,
  calendar: CheckDelay['calendar'],
): { lane: TrackerLane; days: ParcelDays } {
  const destination = destinationOf(order, tracker)
  const carrier = tracker.fields.carrier?.code ?? null
  const service = tracker.fields.carrier_service?.code ?? null
  return {
    lane: { carrier_code: carrier, service_code: service, destination: destination.country },
    days: parcelDaysTo(destination, calendar(carrier, service)),
  }
}

const sameDelay = (a: Delay | null, b: Delay | null) =>
  a === b || (a !== null && b !== null && a.status === b.status && a.reason === b.reason)

/**
 * A tracker's delay, looked at now (delays.ts says how each status is
 * decided). A new status (or reason) is recorded with its revised date, and
 * the customer is told once per episode when it becomes `late` or `stalled`
 * (or `at_risk`, where the rules ask) unless the order or tracker is muted,
 * canceled or the type is off. When only the next look moved, that alone is
 * recorded; when nothing moved, nothing is. A final tracker has no delay.
 */
export function decideDelay(command: CheckDelay, order: OrderState | undefined): OrderEvent[] {
  const tracker = order?.trackers.find((t) => t.id === command.tracker_id)
  if (!order || !tracker) return []
  if (finalStatuses.has(tracker.fields.delivery_status_code)) {
    const data = { tracker_id: tracker.id, delay: null, next_check_at: null, at: command.now }
    return tracker.delay === null ? [] : [{ type: 'TrackerDelayChanged', data }]
  }
  const { lane, days } = parcelDaysOf(order, tracker, command.calendar)
  const verdict = delayVerdict(
    {
      created_at: tracker.created_at,
      shipped_at: tracker.fields.shipped_at,
      last_scan_at: tracker.last_scan_at,
      promise: tracker.fields.displayable_expected_delivery_date,
    },
    days,
    command.rules,
    lane.carrier_code === null ? undefined : command.lessons?.(lane),
    command.now,
  )
  const at = command.now
  const found = verdict.delay
  const delay: Delay | null = found && {
    status: found.status,
    since: found.since,
    reason: found.reason,
    expected_delivery_date: found.revised,
  }
  const events: OrderEvent[] = []
  let state: OrderState = order
  const tracker_id = tracker.id
  if (!sameDelay(tracker.delay, delay)) {
    state = emitted(events, state, {
      type: 'TrackerDelayChanged',
      data: { tracker_id, delay, next_check_at: verdict.next_check_at, at },
    })
    const told = delay && delayNotification(state, tracker_id, delay, command)
    if (told) emitted(events, state, { type: 'NotificationBuilt', data: { notification: told, tracker_id, at } })
  } else if (tracker.delay_check_at !== verdict.next_check_at)
    emitted(events, state, {
      type: 'TrackerDelayChecked',
      data: { tracker_id, next_check_at: verdict.next_check_at, at },
    })
  return events
}

/** The `delayed` notification a new delay builds: once per episode, in the tracker's language (else the order's). */
function delayNotification(order: OrderState, trackerId: number, delay: Delay, command: CheckDelay) {
  const tracker = order.trackers.find((t) => t.id === trackerId)!
  const tells = delay.status !== 'at_risk' || command.rules.notify_at_risk
  if (!tells || tracker.delay_notified || !notifies('delayed', command.notifying)) return undefined
  if (order.fields.mute_notifications || order.fields.canceled || tracker.fields.mute_notifications) return undefined
  return buildNotification('delayed', recipientOf(order, trackerId), command.now, command.ids, command.notifying)
}

/**
 * The delay a carrier event ends, as the same command records it: any delay
 * once the parcel's story is over (delivered, returned, expired), `stalled`
 * when a scan arrives. Looked at again a day after that scan, or at its
 * promise's bound, whichever is first.
 */
export function delayEndedBy(tracker: TrackerState, happenedAt: number, at: number): OrderEvent | undefined {
  if (tracker.delay === null) return undefined
  const ended = finalStatuses.has(tracker.fields.delivery_status_code)
  if (!ended && tracker.delay.status !== 'stalled') return undefined
  const bound = promiseBound(tracker.fields.displayable_expected_delivery_date)
  const next_check_at = ended ? null : earlierOf(bound, Math.max(at, happenedAt + DAY_SECONDS))
  return { type: 'TrackerDelayChanged', data: { tracker_id: tracker.id, delay: null, next_check_at, at } }
}

/**
 * Someone of the merchant's takes back their handling of a tracker's current
 * delay (Undo): it is open again. A delay not handled, or gone, has nothing
 * to take back.
 */
export function decideDelayReopened(
  command: { tracker_id: number; by: string; at: number },
  order: OrderState | undefined,
): OrderEvent[] {
  const tracker = order?.trackers.find((t) => t.id === command.tracker_id)
  if (!tracker) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Tracker not found')
  return tracker.delay !== null && tracker.delay_handled ? [{ type: 'TrackerDelayReopened', data: command }] : []
}

/** Marking a delay handled: who, when, and what they did about it, if they say (an outcome, a note). */
export interface HandleDelay {
  tracker_id: number
  by: string
  at: number
  outcome?: DelayOutcome
  note?: string
}

/**
 * Someone of the merchant's marks a tracker's current delay handled: once; a
 * tracker without a delay has none to handle. A blank note is no note.
 */
export function decideDelayHandled(command: HandleDelay, order: OrderState | undefined): OrderEvent[] {
  const tracker = order?.trackers.find((t) => t.id === command.tracker_id)
  if (!tracker) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Tracker not found')
  if (tracker.delay === null) throw new ShiplogError('SHIPLOG_ERR_CONFLICT', 'The parcel has no delay to handle')
  if (tracker.delay_handled) return []
  const { tracker_id, by, at, outcome } = command
  const note = command.note?.trim()
  if (note && note.length > DELAY_NOTE_MAX)
    throw validationError(`note must be at most ${DELAY_NOTE_MAX} characters`, {
      note: `at most ${DELAY_NOTE_MAX} characters`,
    })
  const data = { tracker_id, by, at, ...(outcome ? { outcome } : {}), ...(note ? { note } : {}) }
  return [{ type: 'TrackerDelayHandled', data }]
}
