import type { FulfillmentChanges, OrderChanges, TrackerChanges } from '../../shared/domain/events/resources.ts'
import type { EventData } from '../../shared/domain/events/index.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import type { EventTypeCode } from '../../shared/domain/vocabulary/tracking-codes.ts'

/** An order `R-1` created at `at`: the first event of every order history the tests fold. */
export const orderCreated = (at: number, changes: OrderChanges = {}, orderId = 1): OrderEvent => ({
  type: 'OrderCreated',
  data: {
    order_id: orderId,
    uuid: `00000000-0000-4000-8000-${String(orderId).padStart(12, '0')}`,
    order_number: 'R-1',
    merchant_id: 'R-1',
    changes,
    at,
  },
})

/** A carrier event as TrackingEventRecorded holds it, saying nothing but its identity, type and time. */
export const recordedCarrierEvent = (
  id: number,
  key: string,
  event_type_code: EventTypeCode | null,
  happened_at: number,
): EventData<'TrackingEventRecorded'>['event'] => ({
  id,
  key,
  event_type_code,
  happened_at,
  message: '',
  messages: {},
  raw: '',
  address: null,
  carrier_event_id: null,
  expected_delivery_at: null,
})

/** The tracker of `orderHistory`. */
export const TRACKER = 30

/**
 * An order (10, `R-1`) with one fulfillment (20) holding one tracker (30,
 * tracking number `TN`), all created at `at` with the changes given: the
 * history the order deciders' rules start from.
 */
export const orderHistory = (
  at: number,
  changes: { order?: OrderChanges; fulfillment?: FulfillmentChanges; tracker?: TrackerChanges } = {},
): OrderEvent[] => [
  {
    type: 'OrderCreated',
    data: { order_id: 10, uuid: 'u-10', order_number: 'R-1', merchant_id: 'R-1', changes: changes.order ?? {}, at },
  },
  {
    type: 'FulfillmentCreated',
    data: {
      fulfillment_id: 20,
      uuid: 'u-20',
      fulfillment_number: 'TN',
      merchant_id: 'TN',
      status_code: 'shipped',
      changes: changes.fulfillment ?? {},
      at,
    },
  },
  {
    type: 'TrackerCreated',
    data: {
      tracker_id: TRACKER,
      uuid: 'u-30',
      fulfillment_id: 20,
      tracking_number: 'TN',
      changes: changes.tracker ?? {},
      at,
    },
  },
]
