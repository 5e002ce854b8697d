import { randomUUID } from 'node:crypto'
import type { OrderDoc } from '../shared/domain/orders/document.ts'
import type { Address } from '../shared/domain/events/resources.ts'
import { orderStream } from '../shared/domain/orders/state.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { ReadStore } from '../shared/infra/read-store/port.ts'

/** Orders of realistic size for the benchmarks: two fulfillments, a tracker of five events each, a notification. */

export const T0 = Date.UTC(2025, 0, 1) / 1000

const address = (id: number, city: string): Address => ({
  id,
  address1: '12 rue de la Paix',
  address2: 'Bâtiment B',
  city,
  comment: null,
  company_title: null,
  country: 'France',
  country_code: 'FR',
  first_name: 'Jo',
  last_name: 'Martin',
  name: 'Jo Martin',
  state: null,
  zip: '75002',
})

export function order(i: number, emails: number): OrderDoc {
  const id = 1_000_000_000 + i * 100
  const created = T0 + i * 30
  const tracker = (k: number) => ({
    id: id + 10 + k * 20,
    uuid: randomUUID(),
    fulfillment_id: id + 2 + k,
    created_at: created,
    updated_at: created + 3600,
    shipped_at: created,
    delivered_at: null,
    first_delivery_attempted_at: null,
    custom_variables: { warehouse: 'LYS-1' },
    delivery_status_code: 'in_transit',
    displayable_expected_delivery_date: '2025-01-04',
    displayable_expected_delivery_datetime: created + 3 * 86400,
    displayable_expected_delivery_kind: 'merchant' as const,
    mute_notifications: false,
    tracking_number: `1Z${i}${k}`,
    tracking_link: `https://wwwapps.ups.com/WebTracking/track?track=yes&trackNums=1Z${i}${k}`,
    untracked_carrier_name: null,
    untracked_carrier_url: null,
    language_code: null,
    carrier: { code: 'ups', name: 'UPS' },
    carrier_service: { id: null, code: 'ups_standard', name: 'UPS Standard' },
    events: Array.from({ length: 5 }, (_, e) => ({
      id: id + 11 + k * 20 + e,
      event_type_code: e === 0 ? 'origin_scan' : 'transit',
      happened_at: created + e * 3600,
      message: 'Arrived at facility',
      raw: '{"status":"AF","location":"LYON"}',
      messages: { en: 'Arrived at facility', fr: 'Arrivé au centre' },
      address: address(id + 17 + k * 20 + e, 'Lyon'),
    })),
    notifications: [],
    line_items: [],
    claims: [],
  })
  return {
    id,
    uuid: randomUUID(),
    canceled: false,
    created_at: created,
    updated_at: created + 3600,
    ordered_at: created - 600,
    custom_variables: { channel: 'web' },
    email: `customer${i % emails}@example.com`,
    first_name: 'Jo',
    last_name: 'Martin',
    phone: '+33612345678',
    language_code: 'fr',
    merchant_id: `O-${i}`,
    mute_notifications: false,
    order_number: `O-${i}`,
    shipping_address: address(id + 1, 'Paris'),
    line_items: [],
    notifications: [
      {
        id: id + 90,
        created_at: created,
        language_code: 'fr',
        notification_type: { id: 1, slug: 'order_placed' },
        notification_payloads: [
          {
            id: id + 91,
            created_at: created,
            dispatched: false,
            status: 'built',
            error: null,
            type: 'email',
            support_cced: null,
          },
        ],
      },
    ],
    fulfillments: [0, 1].map((k) => ({
      id: id + 2 + k,
      uuid: randomUUID(),
      created_at: created,
      updated_at: created,
      custom_variables: null,
      estimated_delivery_range_start: null,
      estimated_delivery_range_end: null,
      fulfillment_number: `F-${i}-${k}`,
      merchant_id: `F-${i}-${k}`,
      status_code: 'shipped',
      line_items: [],
      shipping_address: address(id + 4 + k, 'Paris'),
      trackers: [tracker(k)],
      notifications: [],
    })),
  }
}

/**
 * Loads `size` orders straight into a read store, 5,000 a commit, as its
 * orders projection would write them (`views`, when given, as it renders
 * them when idle); `emails` customers share them.
 */
export async function loadOrders(
  readStore: ReadStore,
  accountId: number,
  size: number,
  emails: number,
  views?: (doc: OrderDoc) => Record<string, string>,
) {
  for (let start = 0; start < size; start += 5000) {
    const writes = Array.from({ length: Math.min(5000, size - start) }, (_, j) => {
      const doc = order(start + j, emails)
      return {
        collection: collections.orders.name,
        key: orderStream(accountId, doc.order_number),
        accountId,
        id: doc.id,
        revision: 5,
        doc,
        fields: {
          email: doc.email,
          order_number: doc.order_number,
          created_at: doc.created_at,
          ordered_at: doc.ordered_at,
        },
        ...(views ? { views: views(doc) } : {}),
      }
    })
    await readStore.commit(['bench-load'], writes, BigInt(start + 1))
  }
}

/** Keep-alive clients posting one order a request, as store platforms' webhooks arrive. */
export const ORDER_CLIENTS = 16

/** A `POST /v2/orders` body as store plugins send it: 3 line items, a fulfillment, a tracker. */
export const orderRequest = (i: number) =>
  JSON.stringify({
    merchant_id: `shop-${i}`,
    order_number: `UP-${i}`,
    email: `c${i}@example.com`,
    first_name: 'Jo',
    ordered_at: '2026-11-20T10:00:00Z',
    shipping_address: { address1: '1 rue de la Paix', city: 'Paris', zip: '75002', country: 'FR' },
    line_items: [1, 2, 3].map((n) => ({
      merchant_id: `L${n}`,
      sku: `SKU-${n}`,
      name: `Item ${n}`,
      quantity: n,
      thumbnail: { src: `https://cdn.example.com/${n}.png`, width: 120, height: 120 },
    })),
    fulfillments: [
      {
        merchant_id: `F-${i}`,
        status_code: 'preparing_shipment',
        line_items: [1, 2, 3].map((n) => ({ merchant_id: `L${n}`, quantity: n })),
        trackers: [
          {
            tracking_number: `UPT${String(i).padStart(8, '0')}`,
            carrier_code: 'colissimo',
            line_items: ['L1', 'L2', 'L3'],
          },
        ],
      },
    ],
  })
