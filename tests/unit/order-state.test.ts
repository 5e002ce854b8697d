import t from 'tap'
import { decideTrackingEvents } from '../../shared/domain/orders/record-tracking-events.ts'
import {
  evolveOrderState,
  foldOrderState,
  ORDER_STATE_VERSION,
  type OrderState,
  recordedEventId,
} from '../../shared/domain/orders/state.ts'
import { countingIds } from '../support/decider.ts'
import { orderHistory, recordedCarrierEvent } from '../support/orders.ts'

const NOW = 1_800_000_000
const address = { address1: '1 rue de la Paix', city: 'Paris', zip: '75002', country_code: 'FR' }

/** An order with every part of its state filled: contact, custom variables, a tracker with scans and notifications. */
function deliveredOrder(): OrderState {
  let order = foldOrderState(
    orderHistory(NOW, {
      order: { email: 'ada@example.com', first_name: 'Ada', custom_variables: { gift: true } },
      tracker: { carrier: { code: 'colissimo', name: 'Colissimo' }, custom_variables: { box: 'S' } },
    }),
  )
  const steps = ['label_created', 'origin_scan', 'out_for_delivery', 'delivered'] as const
  steps.forEach((code, i) => {
    order = decideTrackingEvents(
      {
        events: [{ tracking_number: 'TN', event_type_code: code, happened_at: NOW + i * 3600, address }],
        eventIds: [900 + i],
        now: NOW + i * 3600,
        ids: countingIds(5000 + i * 100),
      },
      order,
    ).order
  })
  return order!
}

t.test('an order state survives a snapshot: its JSON gives back the very same state', async (t) => {
  const order = deliveredOrder()
  t.equal(order.trackers[0]!.fields.delivery_status_code, 'delivered')
  t.ok(order.trackers[0]!.notified.length > 0, 'notifications recorded')
  t.strictSame(JSON.parse(JSON.stringify(order)), order)
})

t.test('the shape of the state is pinned with its version', async (t) => {
  const order = deliveredOrder()
  const keys = (o: object) => Object.keys(o).sort()
  t.same(
    {
      version: ORDER_STATE_VERSION,
      order: keys(order),
      fields: keys(order.fields),
      fulfillment: keys(order.fulfillments[0]!),
      fulfillmentFields: keys(order.fulfillments[0]!.fields),
      tracker: keys(order.trackers[0]!),
      recordedEvent: order.trackers[0]!.event_ids.map((pair) => pair.map((v) => typeof v))[0],
      trackerFields: keys(order.trackers[0]!.fields),
    },
    {
      version: 'order-state-4',
      order: ['fields', 'fulfillments', 'id', 'notified', 'order_number', 'trackers'],
      fields: [
        'canceled',
        'custom_variables',
        'email',
        'first_name',
        'language_code',
        'last_name',
        'line_items',
        'mute_notifications',
        'ordered_at',
        'phone',
        'shipping_address',
      ],
      fulfillment: ['fields', 'id', 'merchant_id'],
      fulfillmentFields: [
        'custom_variables',
        'estimated_delivery_range_end',
        'estimated_delivery_range_start',
        'line_items',
        'shipping_address',
        'status_code',
      ],
      tracker: [
        'created_at',
        'delay',
        'delay_check_at',
        'delay_handled',
        'delay_notified',
        'event_ids',
        'exception',
        'failed_attempt',
        'fields',
        'fulfillment_id',
        'id',
        'last_scan_at',
        'notified',
        'origin_at',
        'status_at',
        'tracking_number',
      ],
      recordedEvent: ['string', 'number'],
      trackerFields: [
        'carrier',
        'carrier_service',
        'custom_variables',
        'delivered_at',
        'delivery_status_code',
        'displayable_expected_delivery_date',
        'displayable_expected_delivery_datetime',
        'displayable_expected_delivery_kind',
        'first_delivery_attempted_at',
        'language_code',
        'line_items',
        'mute_notifications',
        'shipped_at',
        'tracking_link',
        'untracked_carrier_name',
        'untracked_carrier_url',
      ],
    },
    'a state of another shape needs ORDER_STATE_VERSION bumped (snapshots of the old one are then ignored), and this test with it',
  )
})

t.test('a carrier event recorded twice on a tracker is known by the id it was recorded with last', async (t) => {
  // Given a tracker with its scans recorded
  const order = deliveredOrder()
  const tracker = order.trackers[0]!
  const [key, firstId] = tracker.event_ids[0]!
  t.equal(recordedEventId(tracker, key), firstId)
  // When a log holds the same event again under another id
  const again = evolveOrderState(order, {
    type: 'TrackingEventRecorded',
    data: {
      tracker_id: tracker.id,
      event: recordedCarrierEvent(7777, key, 'label_created', NOW),
      at: NOW,
    },
  })
  // Then its identity names the later id, and an identity never recorded names none
  t.equal(recordedEventId(again.trackers[0]!, key), 7777)
  t.equal(recordedEventId(again.trackers[0]!, 'digest:never'), undefined)
})
