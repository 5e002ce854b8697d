import { type Address, emptyAddress } from '../events/resources.ts'
import {
  type FulfillmentFields,
  initialFulfillmentFields,
  initialOrderFields,
  initialTrackerFields,
  type OrderFields,
  type OrderState,
  type TrackerFields,
} from './state.ts'

/*
 * An order state as its snapshot keeps it: every field still at its initial
 * value left out. Most of an order's fields are null, and an order the write
 * side does not remember is parsed from its snapshot at each command: half the
 * JSON to parse, and every unpacked state has the same shape again.
 */

type Sparse<T> = { [K in keyof T]?: T[K] }
type Packed<T extends { fields: object }> = Omit<T, 'fields'> & { fields: Sparse<T['fields']> }

export type PackedOrderState = Omit<Packed<OrderState>, 'fulfillments' | 'trackers'> & {
  fulfillments: Packed<OrderState['fulfillments'][number]>[]
  trackers: Packed<OrderState['trackers'][number]>[]
}

const fulfillmentDefaults = initialFulfillmentFields('shipped')
/** An address keeps its id, which is never 0. */
const addressDefaults = emptyAddress(0)

const isEmptyList = (value: unknown) => Array.isArray(value) && value.length === 0

/** The entries of `value` that differ from `defaults`. */
function sparse<T extends object>(value: T, defaults: T): Sparse<T> {
  const kept: Sparse<T> = {}
  for (const key in value) {
    const v = value[key]
    const d = defaults[key]
    if (v === d || (isEmptyList(v) && isEmptyList(d))) continue
    kept[key] = v
  }
  return kept
}

const packAddress = (address: Address | null) => address && (sparse(address, addressDefaults) as Address)
const unpackAddress = (address: Address | null) => address && { ...addressDefaults, ...address }

export const packOrderState = (state: OrderState): PackedOrderState => ({
  ...state,
  fields: sparse({ ...state.fields, shipping_address: packAddress(state.fields.shipping_address) }, initialOrderFields),
  fulfillments: state.fulfillments.map((f) => ({
    ...f,
    fields: sparse({ ...f.fields, shipping_address: packAddress(f.fields.shipping_address) }, fulfillmentDefaults),
  })),
  trackers: state.trackers.map((t) => ({ ...t, fields: sparse(t.fields, initialTrackerFields) })),
})

export function unpackOrderState(packed: PackedOrderState): OrderState {
  const fields: OrderFields = { ...initialOrderFields, ...packed.fields }
  fields.shipping_address = unpackAddress(fields.shipping_address)
  return {
    ...packed,
    fields,
    fulfillments: packed.fulfillments.map((f) => {
      const fulfillmentFields: FulfillmentFields = { ...fulfillmentDefaults, ...f.fields }
      fulfillmentFields.shipping_address = unpackAddress(fulfillmentFields.shipping_address)
      return { ...f, fields: fulfillmentFields }
    }),
    trackers: packed.trackers.map((t) => ({ ...t, fields: { ...initialTrackerFields, ...t.fields } as TrackerFields })),
  }
}
