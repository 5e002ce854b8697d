import type { OrderEvent } from '../events/index.ts'
import { firstsOf, scansSeenAfter } from './firsts.ts'
import type { StoredAddress } from '../events/resources.ts'
import type { CalendarDate } from './calendar.ts'

/*
 * An order's delivery facts: what each of its parcels was promised, when it
 * shipped and ended, what went wrong, folded from the order's events.
 */

/** One parcel's facts, as its order's events tell them. */
export interface ParcelFacts {
  tracker_id: number
  fulfillment_id: number
  carrier_code: string | null
  service_code: string | null
  /** The country of the carrier's earliest event that names one: where it left from. */
  origin: string | null
  origin_at: number | null
  shipped_at: number | null
  delivered_at: number | null
  returned_at: number | null
  expected_date: CalendarDate | null
  /** The expected delivery date it had when it shipped. */
  promised_date: CalendarDate | null
  failed_attempt: boolean
  exception: boolean
}

export interface OrderDeliveryFacts {
  order_id: number
  destination: Place | null
  /**
   * Each fulfillment's own address, where it has one, as (fulfillment id,
   * place) pairs, not an object keyed by the ids (docs/contributing.md,
   * objects on hot paths).
   */
  fulfillment_destinations: readonly FulfillmentDestination[]
  parcels: ParcelFacts[]
}

export type FulfillmentDestination = readonly [fulfillment_id: number, place: Place]

export interface Place {
  country: string | null
  postcode: string | null
  state: string | null
}

/** Where an address is, as recorded (its fields that are null may be left out). */
const placeOf = (a: StoredAddress | null | undefined): Place | null | undefined =>
  a === undefined
    ? undefined
    : a === null
      ? null
      : { country: a.country_code ?? null, postcode: a.zip ?? null, state: a.state ?? null }

const newParcel = (tracker_id: number, fulfillment_id: number): ParcelFacts => ({
  tracker_id,
  fulfillment_id,
  carrier_code: null,
  service_code: null,
  origin: null,
  origin_at: null,
  shipped_at: null,
  delivered_at: null,
  returned_at: null,
  expected_date: null,
  promised_date: null,
  failed_attempt: false,
  exception: false,
})

/** Whether an event of this type can change an order's delivery facts. */
export const changesDeliveryFacts = (type: string) => FOLDED.has(type)

/** The tracker changes the facts keep (those withChanges reads): any other leaves a parcel's facts as they were. */
const PARCEL_CHANGES = [
  'carrier',
  'carrier_service',
  'displayable_expected_delivery_date',
  'delivered_at',
  'shipped_at',
]

/**
 * Whether this event can change an order's delivery facts, by what it says:
 * a scan recorded as none of its parcel's firsts, a status change other than
 * a return, a tracker change of none of the fields above, and an address
 * change without an address fold to the same facts, so a projection need not
 * read the facts for them.
 */
export function mayChangeDeliveryFacts(event: OrderEvent): boolean {
  switch (event.type) {
    case 'TrackingEventRecorded':
      return event.data.firsts === undefined || event.data.firsts.length > 0
    case 'TrackerStatusChanged':
      return event.data.to === 'returned'
    case 'TrackerUpdated':
      return PARCEL_CHANGES.some((field) => field in event.data.changes)
    case 'OrderUpdated':
      return event.data.changes.shipping_address !== undefined
    case 'FulfillmentCreated':
    case 'FulfillmentUpdated':
      return placeOf(event.data.changes.shipping_address) != null
    default:
      return changesDeliveryFacts(event.type)
  }
}
const FOLDED = new Set<string>([
  'OrderCreated',
  'OrderUpdated',
  'FulfillmentCreated',
  'FulfillmentUpdated',
  'TrackerCreated',
  'TrackerUpdated',
  'TrackingEventRecorded',
  'TrackerStatusChanged',
])

/** Folds one order event into its delivery facts. Pure. */
export function evolveDeliveryFacts(state: OrderDeliveryFacts | undefined, event: OrderEvent): OrderDeliveryFacts {
  if (event.type === 'OrderCreated')
    return {
      order_id: event.data.order_id,
      destination: placeOf(event.data.changes.shipping_address) ?? null,
      fulfillment_destinations: [],
      parcels: [],
    }
  if (!state) throw new Error(`${event.type} before OrderCreated`)
  switch (event.type) {
    case 'OrderUpdated': {
      const destination = placeOf(event.data.changes.shipping_address)
      return destination === undefined ? state : { ...state, destination }
    }
    case 'FulfillmentCreated':
    case 'FulfillmentUpdated': {
      const place = placeOf(event.data.changes.shipping_address)
      if (!place) return state
      return { ...state, fulfillment_destinations: withDestination(state, event.data.fulfillment_id, place) }
    }
    case 'TrackerCreated': {
      const { tracker_id, fulfillment_id, changes, fulfillment } = event.data
      const place = placeOf(fulfillment?.changes.shipping_address)
      const parcel = withChanges(newParcel(tracker_id, fulfillment_id), changes)
      return {
        ...state,
        fulfillment_destinations: place
          ? withDestination(state, fulfillment_id, place)
          : state.fulfillment_destinations,
        parcels: [...state.parcels, parcel],
      }
    }
    case 'TrackerUpdated':
      return mapParcel(state, event.data.tracker_id, (p) => withChanges(p, event.data.changes))
    case 'TrackingEventRecorded': {
      const scan = event.data.event
      return mapParcel(state, event.data.tracker_id, (p) => {
        const firsts = firstsOf(p, scan)
        const seen = scansSeenAfter(p, scan, firsts)
        return firsts.includes('origin') ? { ...seen, origin: scan.address?.country_code ?? null } : seen
      })
    }
    case 'TrackerStatusChanged': {
      const { to, happened_at } = event.data
      return mapParcel(state, event.data.tracker_id, (p) => ({
        ...p,
        returned_at: to === 'returned' ? happened_at : p.returned_at,
      }))
    }
    default:
      return state
  }
}

function withChanges(
  p: ParcelFacts,
  changes: Extract<OrderEvent, { type: 'TrackerUpdated' }>['data']['changes'],
): ParcelFacts {
  const next = { ...p }
  if (changes.carrier !== undefined) next.carrier_code = changes.carrier?.code ?? null
  if (changes.carrier_service !== undefined) next.service_code = changes.carrier_service?.code ?? null
  if (changes.displayable_expected_delivery_date !== undefined)
    next.expected_date = changes.displayable_expected_delivery_date
  if (changes.delivered_at !== undefined) next.delivered_at = changes.delivered_at
  if (changes.shipped_at !== undefined) {
    // What it was promised when it first shipped: the date it had then, with this same change's.
    if (p.shipped_at === null && changes.shipped_at !== null) next.promised_date = next.expected_date
    next.shipped_at = changes.shipped_at
  }
  if (p.shipped_at !== null && p.promised_date === null && changes.displayable_expected_delivery_date)
    next.promised_date = changes.displayable_expected_delivery_date
  return next
}

/** The fulfillment's destination set to `place`, where it was, else added last. */
function withDestination(state: OrderDeliveryFacts, fulfillmentId: number, place: Place): FulfillmentDestination[] {
  const kept = state.fulfillment_destinations
  const at = kept.findIndex(([id]) => id === fulfillmentId)
  return at < 0 ? [...kept, [fulfillmentId, place]] : kept.map((d, i) => (i === at ? [fulfillmentId, place] : d))
}

/** Where a fulfillment goes: its own address, else the order's. */
export const destinationOf = (order: OrderDeliveryFacts, fulfillmentId: number) =>
  order.fulfillment_destinations.find(([id]) => id === fulfillmentId)?.[1] ?? order.destination

const mapParcel = (state: OrderDeliveryFacts, id: number, f: (p: ParcelFacts) => ParcelFacts) => ({
  ...state,
  parcels: state.parcels.map((p) => (p.tracker_id === id ? f(p) : p)),
})
