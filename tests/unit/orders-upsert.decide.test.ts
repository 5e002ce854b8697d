import t from 'tap'
import type { LineItem } from '../../shared/domain/events/resources.ts'
import { evolveOrderState } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import {
  decideOrderUpsert,
  fulfillmentStatus,
  mergeLineItems,
  newLineItem,
  type OrderInput,
} from '../../shared/domain/orders/upsert-order.ts'
import { countingIds, specOf } from '../support/decider.ts'

const NOW = 1_800_000_000

const given = specOf<OrderInput, ReturnType<typeof evolveOrderState>, OrderEvent>({
  decide: (order, state) =>
    decideOrderUpsert({ order, now: NOW, accountLanguage: 'en', ids: countingIds(100) }, state).events,
  evolve: evolveOrderState,
})

const decided = (order: OrderInput, history: OrderEvent[] = []) =>
  decideOrderUpsert(
    { order, now: NOW, accountLanguage: 'en', ids: countingIds(500) },
    history.reduce(evolveOrderState, undefined as never),
  )

const order: OrderInput = {
  merchant_id: 'shop-1',
  order_number: 'W-1',
  email: 'jo@example.com',
  line_items: [{ merchant_id: 'L1', quantity: 2 }],
  fulfillments: [
    {
      merchant_id: 'F1',
      line_items: [{ merchant_id: 'L1', quantity: 2 }],
      trackers: [{ tracking_number: 'TN-1', carrier_code: 'dhl', line_items: ['L1'] }],
    },
  ],
}

t.test('a new order: the order, its notification, its fulfillment and tracker, in that order', async (t) => {
  given([])
    .when(order)
    .thenMatch(t, [
      {
        type: 'OrderCreated',
        data: { order_number: 'W-1', merchant_id: 'shop-1', changes: { email: 'jo@example.com' } },
      },
      { type: 'NotificationBuilt', data: { notification: { notification_type: { slug: 'order_placed' } } } },
      { type: 'FulfillmentCreated', data: { merchant_id: 'F1', status_code: 'shipped' } },
      {
        type: 'TrackerCreated',
        data: { tracking_number: 'TN-1', changes: { line_items: [{ merchant_id: 'L1', quantity: 2 }] } },
      },
    ])
})

t.test('the same order sent again decides nothing; a change decides only the change', async (t) => {
  const history = decided(order).events
  given(history).when(order).thenEvents(t, [])
  given(history)
    .when({ ...order, fulfillments: [{ merchant_id: 'F1', custom_variables: { gift: true } }] })
    .thenMatch(t, [{ type: 'FulfillmentUpdated', data: { changes: { custom_variables: { gift: true } } } }])
})

t.test('fulfillments match by merchant_id, trackers by tracking number within the order', async (t) => {
  const history = decided(order).events
  const { events } = decided(
    {
      merchant_id: 'shop-1',
      order_number: 'W-1',
      fulfillments: [
        { merchant_id: 'F1', trackers: [{ tracking_number: 'TN-1', mute_notifications: true }] },
        { merchant_id: 'F2', trackers: [{ tracking_number: 'TN-2' }] },
      ],
    },
    history,
  )
  t.match(
    events.map((e) => e.type),
    ['TrackerUpdated', 'FulfillmentCreated', 'TrackerCreated'],
  )
})

t.test(
  'line items: merged by merchant_id, never dropped, canceled when canceled_quantity reaches quantity',
  async (t) => {
    const current = mergeLineItems(
      [],
      [
        { merchant_id: 'A', quantity: 2 },
        { merchant_id: 'B', quantity: 1 },
      ],
      1,
      countingIds(),
    )!
    const next = mergeLineItems(current, [{ merchant_id: 'B', canceled_quantity: 1 }], 2, countingIds(10))!
    t.same(
      next.map((li) => [li.merchant_id, li.canceled]),
      [
        ['A', null],
        ['B', true],
      ],
      'A, not sent, stays; B is canceled',
    )
    t.equal(next[0], current[0], 'an item not sent is the same item')
    t.equal(next[1]!.updated_at, 2)
    t.equal(mergeLineItems(current, undefined, 2, countingIds()), undefined, 'no list sent: no change')
  },
)

const item = (merchant_id: string, quantity: number | null, canceled: boolean | null = null): LineItem => ({
  ...newLineItem(1, merchant_id, 0),
  quantity,
  canceled,
})

t.test('the fulfillment status rules', async (t) => {
  const items = [item('A', 2), item('B', 1)]
  t.equal(fulfillmentStatus('pending', items, [], true), 'canceled', 'a canceled order')
  t.equal(fulfillmentStatus('pending', [item('A', 2, true)], [], false), 'canceled', 'every item canceled')
  t.equal(fulfillmentStatus('pending', items, [item('A', 2), item('B', 1)], false), 'shipped', 'every item in trackers')
  t.equal(fulfillmentStatus('pending', items, [item('A', 1)], false), 'partially_shipped', 'some of them')
  t.equal(
    fulfillmentStatus('pending', [item('A', 2), item('B', 1, true)], [item('A', 2)], false),
    'shipped',
    'a canceled item is not waited for',
  )
  t.equal(fulfillmentStatus('delayed', items, [], false), 'delayed', 'none in trackers: the status given')
  t.equal(fulfillmentStatus('blocked', [], [], false), 'blocked', 'no line items: the status given')
})

t.test('canceling an order cancels every fulfillment, sent or not, and builds no order_placed', async (t) => {
  const history = decided(order).events
  given(history)
    .when({ merchant_id: 'shop-1', order_number: 'W-1', canceled: true })
    .thenMatch(t, [
      { type: 'OrderUpdated', data: { changes: { canceled: true } } },
      { type: 'FulfillmentUpdated', data: { changes: { status_code: 'canceled' } } },
    ])
  t.notOk(
    decided({ ...order, canceled: true }).events.some((e) => e.type === 'NotificationBuilt'),
    'a canceled new order is not told it was placed',
  )
})

t.test('a tracker line item must name one of the fulfillment or the order', async (t) => {
  given([])
    .when({
      ...order,
      fulfillments: [{ merchant_id: 'F1', trackers: [{ tracking_number: 'T', line_items: ['NOPE'] }] }],
    })
    .thenThrows(t, { code: 'SHIPLOG_ERR_VALIDATION' })
})
