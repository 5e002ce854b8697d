import { readAfter, recordTrackingEvents, type TestServer } from './server.ts'

/** An order of two parcels (Colissimo and Chronopost) to Lyon, in English, with two line items. */
export const trackedOrder = (overrides: Record<string, unknown> = {}) => ({
  merchant_id: 'W-2001',
  order_number: 'W-2001',
  email: 'camille.durand@example.org',
  phone: '+33612345678',
  first_name: 'Camille',
  last_name: 'Durand',
  language_code: 'en',
  shipping_address: { address1: '8 rue des Lilas', city: 'Lyon', zip: '69004', country: 'FR' },
  line_items: [
    { merchant_id: 'L1', name: 'Blue mug', quantity: 2, thumbnail: { src: 'https://cdn.shop.example/mug.png' } },
    { merchant_id: 'L2', name: 'Tea towel', quantity: 1, thumbnail: { src: 'http://cdn.shop.example/towel.png' } },
  ],
  fulfillments: [
    { merchant_id: 'F1', trackers: [{ tracking_number: '6A12345678901', carrier_code: 'colissimo' }] },
    { merchant_id: 'F2', trackers: [{ tracking_number: 'XY123456789FR', carrier_code: 'chronopost' }] },
  ],
  ...overrides,
})

export async function createOrder(server: TestServer, body = trackedOrder(), key?: string) {
  const created = await server.request('POST', '/v2/orders', { body, key })
  if (created.status !== 201) throw new Error(JSON.stringify(created.body))
  return created.body as { id: number }
}

/** Records carrier events that must be taken; the position of their write. */
export async function pushEvents(server: TestServer, events: Record<string, unknown>[]) {
  const pushed = await recordTrackingEvents(server, events)
  if (pushed.status !== 201) throw new Error(JSON.stringify(pushed.body))
  return pushed.position
}

/** GET /v2/orders/{id}/tracking_link, after the position given. */
export const linkOf = (server: TestServer, orderId: number, position?: string, key?: string) =>
  readAfter(server, `/v2/orders/${orderId}/tracking_link`, position, key)
