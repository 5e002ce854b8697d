import t from 'tap'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { Expansion } from '../../projectors/resources/expansion.ts'
import { renderOrder } from '../../projectors/resources/render.ts'
import { orderExpandPaths } from '../../projectors/resources/expansion.ts'

const address = (id: number) => ({
  id,
  address1: '1 Main St',
  address2: null,
  city: 'Paris',
  comment: null,
  company_title: null,
  country: 'France',
  country_code: 'FR',
  first_name: null,
  last_name: null,
  name: 'Jo',
  state: null,
  zip: '75001',
})
const lineItem = (id: number) => ({
  id,
  canceled: false,
  canceled_quantity: 0,
  quantity: 1,
  shipped_quantity: 1,
  created_at: 1,
  updated_at: 1,
  custom_variables: null,
  description: null,
  name: 'Mug',
  title: 'Mug',
  variant_title: null,
  merchant_id: `li-${id}`,
  requires_shipping: true,
  sku: 'MUG',
  thumbnail: { src: 'https://x/m.png', width: '64', height: '64' },
})

const order: OrderDoc = {
  id: 1,
  uuid: 'u',
  canceled: false,
  created_at: 1,
  updated_at: 2,
  ordered_at: null,
  custom_variables: null,
  email: 'a@x.io',
  first_name: null,
  last_name: null,
  phone: null,
  language_code: 'en',
  merchant_id: 'A',
  mute_notifications: false,
  order_number: 'A',
  shipping_address: address(10),
  line_items: [lineItem(20)],
  notifications: [],
  fulfillments: [
    {
      id: 2,
      uuid: 'f',
      created_at: 1,
      updated_at: 1,
      custom_variables: null,
      estimated_delivery_range_start: null,
      estimated_delivery_range_end: null,
      fulfillment_number: 'F',
      merchant_id: 'F',
      status_code: 'shipped',
      line_items: [lineItem(21)],
      shipping_address: address(11),
      notifications: [],
      trackers: [
        {
          id: 3,
          uuid: 't',
          fulfillment_id: 2,
          created_at: 1,
          updated_at: 1,
          shipped_at: null,
          delivered_at: null,
          first_delivery_attempted_at: null,
          custom_variables: null,
          delivery_status_code: 'in_transit',
          displayable_expected_delivery_date: null,
          displayable_expected_delivery_datetime: null,
          displayable_expected_delivery_kind: null,
          mute_notifications: false,
          tracking_number: 'T',
          tracking_link: null,
          untracked_carrier_name: null,
          untracked_carrier_url: null,
          language_code: null,
          carrier: { code: 'ups', name: 'UPS' },
          carrier_service: null,
          notifications: [],
          claims: [],
          line_items: [lineItem(22)],
          events: [
            {
              id: 4,
              event_type_code: 'origin_scan',
              happened_at: 5,
              message: 'Scanned',
              raw: '{}',
              messages: { en: 'Scanned' },
              address: address(12),
            },
          ],
        },
      ],
    },
  ],
}

t.test('nothing expanded: every nested resource is a stub', async (t) => {
  const r = renderOrder(order, Expansion.none) as any
  t.same(r.shipping_address, { object: 'address', id: 10 })
  t.same(r.line_items, { object: 'list', data: [{ object: 'line_item', id: 20 }] })
  t.same(r.fulfillments, { object: 'list', data: [{ object: 'fulfillment', id: 2 }] })
  t.notOk('fulfillment_id' in r, 'no internal fields')
})

t.test('each path expands exactly itself and its parents', async (t) => {
  const x = (p: string) => renderOrder(order, Expansion.parse([p], orderExpandPaths)) as any
  t.match(x('line_items').line_items.data[0], { object: 'line_item', sku: 'MUG', thumbnail: { width: '64' } })
  const f = x('fulfillments.line_items').fulfillments.data[0]
  t.match(f.line_items.data[0], { object: 'line_item', sku: 'MUG' })
  t.same(f.trackers.data[0], { object: 'tracker', id: 3 })
  const tracker = x('fulfillments.trackers.line_items').fulfillments.data[0].trackers.data[0]
  t.match(tracker.line_items.data[0], { object: 'line_item', id: 22 })
  t.same(tracker.events.data[0], { object: 'event', id: 4 })
  t.same(tracker.carrier, { object: 'carrier', code: 'ups' })
  const event = x('fulfillments.trackers.events.address').fulfillments.data[0].trackers.data[0].events.data[0]
  t.match(event, {
    object: 'event',
    event_type_code: 'origin_scan',
    messages: { en: 'Scanned' },
    address: { object: 'address', city: 'Paris' },
  })
  t.same(x('fulfillments.trackers.events.address').shipping_address, { object: 'address', id: 10 })
})

t.test('unknown paths are refused, naming them', async (t) => {
  t.throws(() => Expansion.parse(['fulfillments', 'nope'], orderExpandPaths), { status: 400, message: /nope/ })
})
