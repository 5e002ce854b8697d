import t from 'tap'
import { foldOrderState } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { evolveOrder } from '../../shared/domain/orders/evolve-document.ts'

/*
 * A new order's tracker carries the fulfillment made for it in its
 * TrackerCreated; a log may also hold the older form, a FulfillmentCreated
 * then the TrackerCreated. Both folds, the write side's state and the read
 * model's document, must make the same order of either.
 */
const AT = 1_800_000_000
const address = { id: 7, address1: '1 rue de la Paix', city: 'Paris', country_code: 'FR' }
const orderCreated: OrderEvent = {
  type: 'OrderCreated',
  data: {
    order_id: 1,
    uuid: '00000000-0000-4000-8000-000000000001',
    order_number: 'R-1',
    merchant_id: 'R-1',
    changes: { email: 'ann@example.com' },
    at: AT,
  },
} as OrderEvent
const fulfillment = {
  uuid: '00000000-0000-4000-8000-000000000002',
  fulfillment_number: '1Z999',
  merchant_id: '1Z999',
  status_code: 'shipped',
  changes: { shipping_address: address },
}
const tracker = {
  tracker_id: 3,
  uuid: '00000000-0000-4000-8000-000000000003',
  fulfillment_id: 2,
  tracking_number: '1Z999',
  changes: { carrier: { code: 'ups', name: 'UPS' } },
  at: AT,
}
const carried = [orderCreated, { type: 'TrackerCreated', data: { ...tracker, fulfillment } }] as OrderEvent[]
const separate = [
  orderCreated,
  { type: 'FulfillmentCreated', data: { fulfillment_id: 2, ...fulfillment, at: AT } },
  { type: 'TrackerCreated', data: tracker },
] as OrderEvent[]

t.test('the write side folds a carried fulfillment as its own event', async (t) => {
  const state = foldOrderState(carried)!
  t.strictSame(state, foldOrderState(separate))
  t.match(state.fulfillments, [
    { id: 2, merchant_id: '1Z999', fields: { status_code: 'shipped', shipping_address: address } },
  ])
  t.match(state.trackers, [{ id: 3, fulfillment_id: 2 }])
})

t.test('the order document holds the carried fulfillment with its tracker in it', async (t) => {
  const doc = carried.reduce(evolveOrder, undefined as ReturnType<typeof evolveOrder> | undefined)!
  t.strictSame(doc, separate.reduce(evolveOrder, undefined as ReturnType<typeof evolveOrder> | undefined))
  t.match(doc.fulfillments, [
    {
      id: 2,
      fulfillment_number: '1Z999',
      status_code: 'shipped',
      shipping_address: address,
      trackers: [{ id: 3, tracking_number: '1Z999' }],
    },
  ])
})
