import { carrierCodeOfName, detectCarrier } from '../../shared/domain/carriers/carriers.ts'
import type { ConnectionPlatform } from '../../shared/domain/events/connection-events.ts'
import { orderBody, type OrderBody } from '../orders/schema.ts'

/*
 * A store's order, as its webhook (or its API) gives it, made into the body
 * of POST /v2/orders (docs/connectors.md): the order number the customer sees,
 * the platform's id as `merchant_id`, the customer, the shipping address, the
 * line items, and each shipment's tracking numbers with their carrier (named
 * by the store, else detected from the number). Then held to POST /v2/orders'
 * own rules.
 */

// biome-ignore lint/suspicious/noExplicitAny: a store's payload, untrusted in every field, is held to orderBody after.
type Json = Record<string, any>

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null)
const id = (v: unknown) => (v === null || v === undefined ? null : String(v))

/**
 * A tracker for each number: its carrier the one the store names where
 * shiplog knows it, else the one its number shows, else kept by the store's
 * name for it and its tracking page.
 */
const trackersOf = (numbers: readonly unknown[], company: unknown, url?: unknown) =>
  numbers
    .map(text)
    .filter((n): n is string => n !== null)
    .map((tracking_number) => {
      const carrier_code = carrierCodeOfName(text(company)) ?? detectCarrier(tracking_number)?.carrier.code ?? null
      return carrier_code || !text(company)
        ? { tracking_number, carrier_code }
        : { tracking_number, untracked_carrier_name: text(company), untracked_carrier_url: text(url) }
    })

function shopifyOrder(o: Json) {
  const ship = (o.shipping_address ?? {}) as Json
  return {
    merchant_id: id(o.id),
    order_number: text(o.name) ?? id(o.order_number) ?? id(o.id),
    email: text(o.email) ?? text(o.customer?.email),
    first_name: text(o.customer?.first_name) ?? text(ship.first_name),
    last_name: text(o.customer?.last_name) ?? text(ship.last_name),
    phone: text(o.phone) ?? text(ship.phone),
    ordered_at: text(o.created_at),
    canceled: Boolean(o.cancelled_at),
    shipping_address: o.shipping_address
      ? {
          first_name: text(ship.first_name),
          last_name: text(ship.last_name),
          company_title: text(ship.company),
          address1: text(ship.address1),
          address2: text(ship.address2),
          city: text(ship.city),
          zip: text(ship.zip),
          state: text(ship.province_code) ?? text(ship.province),
          country_code: text(ship.country_code),
        }
      : null,
    line_items: ((o.line_items ?? []) as Json[]).map((li) => ({
      merchant_id: id(li.id),
      sku: text(li.sku),
      name: text(li.name) ?? text(li.title),
      quantity: typeof li.quantity === 'number' ? li.quantity : null,
    })),
    fulfillments: ((o.fulfillments ?? []) as Json[])
      .filter((f) => f.status !== 'cancelled')
      .map((f) => ({
        merchant_id: id(f.id),
        trackers: trackersOf(
          Array.isArray(f.tracking_numbers) ? f.tracking_numbers : [f.tracking_number],
          f.tracking_company,
          Array.isArray(f.tracking_urls) ? f.tracking_urls[0] : f.tracking_url,
        ),
      })),
  }
}

/** WooCommerce Shipment Tracking keeps each shipment in the order's meta data. */
const shipmentsOf = (o: Json): Json[] => {
  const items = ((o.meta_data ?? []) as Json[]).find((m) => m.key === '_wc_shipment_tracking_items')?.value
  return Array.isArray(items) ? items : []
}

function wooCommerceOrder(o: Json) {
  const ship = (o.shipping ?? {}) as Json
  const bill = (o.billing ?? {}) as Json
  const created = text(o.date_created_gmt)
  return {
    merchant_id: id(o.id),
    order_number: id(o.number) ?? id(o.id),
    email: text(bill.email),
    first_name: text(ship.first_name) ?? text(bill.first_name),
    last_name: text(ship.last_name) ?? text(bill.last_name),
    phone: text(ship.phone) ?? text(bill.phone),
    // WooCommerce writes its GMT times without a zone.
    ordered_at: created && !/[zZ]|[+-]\d\d:?\d\d$/.test(created) ? `${created}Z` : created,
    canceled: o.status === 'cancelled',
    shipping_address: {
      first_name: text(ship.first_name),
      last_name: text(ship.last_name),
      company_title: text(ship.company),
      address1: text(ship.address_1),
      address2: text(ship.address_2),
      city: text(ship.city),
      zip: text(ship.postcode),
      state: text(ship.state),
      country_code: text(ship.country),
    },
    line_items: ((o.line_items ?? []) as Json[]).map((li) => ({
      merchant_id: id(li.id),
      sku: text(li.sku),
      name: text(li.name),
      quantity: typeof li.quantity === 'number' ? li.quantity : null,
    })),
    fulfillments: shipmentsOf(o).map((s) => ({
      merchant_id: id(s.tracking_id) ?? id(s.tracking_number),
      trackers: trackersOf(
        [s.tracking_number],
        text(s.tracking_provider) ?? text(s.custom_tracking_provider),
        s.custom_tracking_link,
      ),
    })),
  }
}

/** The POST /v2/orders body of a store's order, or why it cannot be one (a field POST /v2/orders refuses). */
export function orderOfStore(
  platform: ConnectionPlatform,
  payload: unknown,
): { ok: true; order: OrderBody } | { ok: false; error: string } {
  if (typeof payload !== 'object' || payload === null) return { ok: false, error: 'the body is not an order' }
  const mapped = platform === 'shopify' ? shopifyOrder(payload as Json) : wooCommerceOrder(payload as Json)
  const parsed = orderBody.safeParse(mapped)
  return parsed.success
    ? { ok: true, order: parsed.data }
    : { ok: false, error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }
}
