import { assertNever, type DomainEvent } from '../events/index.ts'
import type { connectionEvents } from '../events/connection-events.ts'

/*
 * What a store learns of its orders' parcels: each status change of a
 * tracker whose order came from it, as the platform names it.
 */

export type StoreUpdateEvent = Extract<
  DomainEvent,
  { type: Extract<keyof typeof connectionEvents, `StoreUpdate${string}`> }
>

export interface StoreUpdateState {
  update_id: number
  connection_id: number
  order_stream: string
  tracker_id: number
  status: string
  happened_at: number
  state: 'pending' | 'sent' | 'failed'
  error: string | null
}

export const storeUpdateStream = (accountId: number, updateId: number) => `storeupdate-${accountId}_${updateId}`

/** Shopify's fulfillment event status for a shiplog status; undefined: not one Shopify tells its customers of. */
const SHOPIFY: Readonly<Record<string, string>> = {
  in_transit: 'IN_TRANSIT',
  out_for_delivery: 'OUT_FOR_DELIVERY',
  failed_attempt: 'ATTEMPTED_DELIVERY',
  available_for_pickup: 'READY_FOR_PICKUP',
  delivered: 'DELIVERED',
  exception: 'FAILURE',
  returned: 'FAILURE',
}
const WORDS: Readonly<Record<string, string>> = {
  in_transit: 'in transit',
  out_for_delivery: 'out for delivery',
  failed_attempt: 'a delivery attempt failed',
  available_for_pickup: 'ready for pickup',
  delivered: 'delivered',
  exception: 'a delivery problem',
  returned: 'returned to the sender',
}

/** Whether a status change is one the store is told of. */
export const toldToStores = (status: string) => status in WORDS

export const shopifyEventStatus = (status: string) => SHOPIFY[status]

/** The order note a WooCommerce store gets: the parcel, its carrier and its new status, with when. */
export const wooCommerceNote = (
  update: { status: string; happened_at: number },
  trackingNumber: string,
  carrier: string | null,
) =>
  `shiplog: parcel ${trackingNumber}${carrier ? ` (${carrier})` : ''} is ${WORDS[update.status] ?? update.status}, ${new Date(update.happened_at * 1000).toISOString()}`

export function evolveStoreUpdate(state: StoreUpdateState | undefined, event: StoreUpdateEvent): StoreUpdateState {
  if (event.type === 'StoreUpdatePlanned') {
    const { update_id, connection_id, order_stream, tracker_id, status, happened_at } = event.data
    return { update_id, connection_id, order_stream, tracker_id, status, happened_at, state: 'pending', error: null }
  }
  if (!state) throw new Error(`${event.type} before StoreUpdatePlanned`)
  switch (event.type) {
    case 'StoreUpdateSent':
      return { ...state, state: 'sent' }
    case 'StoreUpdateFailed':
      return { ...state, state: 'failed', error: event.data.error }
    default:
      return assertNever(event)
  }
}
