import t from 'tap'
import { orderOfStore } from '../../commands/connections/store-orders.ts'

/*
 * A store's order made into POST /v2/orders' body (docs/connectors.md): the
 * number the customer sees, the platform's id, and each shipment's carrier
 * as the store names it, else as its number shows, else kept by name.
 */

t.test(
  "Shopify: the order's name is its number, its id the merchant's; carriers named, detected or kept",
  async (t) => {
    const mapped = orderOfStore('shopify', {
      id: 450789469,
      name: '#1001',
      email: 'bob@example.com',
      created_at: '2026-11-27T10:15:00-05:00',
      cancelled_at: null,
      customer: { first_name: 'Bob', last_name: 'Norman' },
      shipping_address: { city: 'Ottawa', zip: 'K2P0V6', province_code: 'ON', country_code: 'CA' },
      line_items: [{ id: 466157049, name: 'IPod Nano', sku: 'IPOD', quantity: 1 }],
      fulfillments: [
        { id: 1, status: 'success', tracking_company: 'DHL Express', tracking_numbers: ['1234567890'] },
        { id: 2, status: 'success', tracking_company: null, tracking_numbers: ['1Z999AA10123456784'] },
        {
          id: 3,
          status: 'success',
          tracking_company: 'Canada Post',
          tracking_numbers: ['CP-0001'],
          tracking_urls: ['https://www.canadapost-postescanada.ca/track?pin=CP-0001'],
        },
        { id: 4, status: 'cancelled', tracking_company: 'UPS', tracking_numbers: ['1Z999AA10123456785'] },
      ],
    })
    t.ok(mapped.ok)
    if (!mapped.ok) return
    t.match(mapped.order, {
      merchant_id: '450789469',
      order_number: '#1001',
      email: 'bob@example.com',
      first_name: 'Bob',
      ordered_at: Date.parse('2026-11-27T15:15:00Z') / 1000,
      canceled: false,
      shipping_address: { city: 'Ottawa', state: 'ON', country_code: 'CA' },
      line_items: [{ merchant_id: '466157049', name: 'IPod Nano', sku: 'IPOD', quantity: 1 }],
    })
    t.same(
      mapped.order.fulfillments?.map((f) => [f.merchant_id, f.trackers]),
      [
        ['1', [{ tracking_number: '1234567890', carrier_code: 'dhl_express' }]],
        ['2', [{ tracking_number: '1Z999AA10123456784', carrier_code: 'ups' }]],
        [
          '3',
          [
            {
              tracking_number: 'CP-0001',
              untracked_carrier_name: 'Canada Post',
              untracked_carrier_url: 'https://www.canadapost-postescanada.ca/track?pin=CP-0001',
            },
          ],
        ],
      ],
      'a cancelled fulfillment is left out',
    )
  },
)

t.test("WooCommerce: its number, its billing e-mail, Shipment Tracking's items; GMT without a zone", async (t) => {
  const mapped = orderOfStore('woocommerce', {
    id: 727,
    number: '727',
    status: 'cancelled',
    date_created_gmt: '2026-11-27T15:54:40',
    billing: { email: 'ana@example.com', first_name: 'Ana' },
    shipping: { first_name: 'Ana', last_name: 'Lima', city: 'Lyon', postcode: '69002', country: 'FR' },
    line_items: [{ id: 315, name: 'Mug', quantity: 2 }],
    meta_data: [
      {
        key: '_wc_shipment_tracking_items',
        value: [{ tracking_provider: 'colissimo', tracking_number: '6A12345678901', tracking_id: 'a1' }],
      },
    ],
  })
  t.ok(mapped.ok)
  if (!mapped.ok) return
  t.match(mapped.order, {
    merchant_id: '727',
    order_number: '727',
    email: 'ana@example.com',
    canceled: true,
    ordered_at: Date.parse('2026-11-27T15:54:40Z') / 1000,
    shipping_address: { zip: '69002', country_code: 'FR' },
  })
  t.same(mapped.order.fulfillments?.[0], {
    merchant_id: 'a1',
    trackers: [{ tracking_number: '6A12345678901', carrier_code: 'colissimo' }],
  })
})

t.test('what POST /v2/orders refuses is said, field by field', async (t) => {
  t.same(orderOfStore('shopify', 'not an order'), { ok: false, error: 'the body is not an order' })
  const refused = orderOfStore('shopify', { name: '#1', line_items: [{ name: 'no id' }] })
  t.match(refused, { ok: false, error: /merchant_id/ })
})
