import t from 'tap'
import {
  type Address,
  emptyAddress,
  expandAddress,
  type StoredAddress,
  storedAddressOf,
} from '../../shared/domain/events/resources.ts'
import { foldOrder } from '../../shared/domain/orders/evolve-document.ts'
import { decideTrackingEvents } from '../../shared/domain/orders/record-tracking-events.ts'
import { foldOrderState } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { decideOrderUpsert } from '../../shared/domain/orders/upsert-order.ts'
import { decideTrackerUpserts } from '../../shared/domain/orders/upsert-trackers.ts'
import { countingIds } from '../support/decider.ts'
import { orderHistory } from '../support/orders.ts'

/*
 * Events record an address with only its fields that are set; the folds
 * expand it. Events recorded before hold every field, nulls included, and
 * must fold to the same state and document.
 */
const NOW = 1_800_000_000

/** Every address in the events, as recorded. */
function addressesIn(events: readonly OrderEvent[]): StoredAddress[] {
  const found: StoredAddress[] = []
  const visit = (value: unknown, key?: string) => {
    if (typeof value !== 'object' || value === null) return
    if ((key === 'shipping_address' || key === 'address') && 'id' in value) found.push(value as StoredAddress)
    for (const [k, v] of Object.entries(value)) visit(v, k)
  }
  for (const e of events) visit(e.data)
  return found
}

/** The same events with each address as events recorded before held it: every field, nulls included. */
function withFullAddresses(events: readonly OrderEvent[]): OrderEvent[] {
  const expand = (value: unknown, key?: string): unknown => {
    if (typeof value !== 'object' || value === null) return value
    if ((key === 'shipping_address' || key === 'address') && 'id' in value) return expandAddress(value as StoredAddress)
    if (Array.isArray(value)) return value.map((v) => expand(v))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, k)]))
  }
  return events.map((e) => ({ ...e, data: expand(e.data) }) as OrderEvent)
}

t.test('an address keeps its fields, in order, through its recorded form', async (t) => {
  const full: Address = { ...emptyAddress(7), city: 'Lyon', country: 'France', country_code: 'FR', zip: '' }
  t.strictSame(storedAddressOf(full), { id: 7, city: 'Lyon', country: 'France', country_code: 'FR', zip: '' })
  t.equal(JSON.stringify(expandAddress(storedAddressOf(full))), JSON.stringify(full))
  t.equal(JSON.stringify(expandAddress(full)), JSON.stringify(full), 'an address recorded whole reads the same')
})

t.test('tracker upserts record addresses without their null fields', async (t) => {
  // Given a new order, when two trackers are upserted with a city and a country
  const { events } = decideTrackerUpserts(
    {
      items: [
        { order_number: 'R-1', tracking_number: '1Z1', address_city: 'Lyon', address_country: 'FR' },
        { order_number: 'R-1', tracking_number: '1Z2', address_city: 'Lyon', address_country: 'FR' },
      ],
      now: NOW,
      accountLanguage: 'en',
      ids: countingIds(100),
    },
    undefined,
  )
  // Then the order's and each fulfillment's address hold only what was sent
  const addresses = addressesIn(events)
  t.equal(addresses.length, 3)
  for (const a of addresses) t.strictSame(Object.keys(a), ['id', 'city', 'country', 'country_code'])
  // And the folds see every field
  const state = foldOrderState(events)!
  t.strictSame(state.fields.shipping_address, {
    ...emptyAddress(addresses[0]!.id),
    city: 'Lyon',
    country: 'France',
    country_code: 'FR',
  })
  t.strictSame(state, foldOrderState(withFullAddresses(events)))
  t.strictSame(foldOrder(events), foldOrder(withFullAddresses(events)))
})

t.test('an order upsert and a changed address record only the fields that are set', async (t) => {
  const command = (address: { address1?: string | null; zip?: string | null; country_code?: string | null }) => ({
    order: {
      merchant_id: 'R-1',
      shipping_address: address,
      fulfillments: [
        { merchant_id: 'F-1', shipping_address: { city: 'Paris' }, trackers: [{ tracking_number: 'TN' }] },
      ],
    },
    now: NOW,
    accountLanguage: 'en',
    ids: countingIds(200),
  })
  // Given an order created with a street and a postcode
  const created = decideOrderUpsert(
    command({ address1: '1 rue de la Paix', zip: '75002', country_code: 'FR' }),
    undefined,
  )
  for (const a of addressesIn(created.events)) t.notOk(Object.values(a).includes(null), 'no null field recorded')
  // When the street is cleared
  const state = foldOrderState(created.events)!
  const updated = decideOrderUpsert(command({ address1: null }), state)
  // Then the change records the address without it, and the folds read it as null
  const [changed] = addressesIn(updated.events)
  t.strictSame(changed, { id: state.fields.shipping_address!.id, country: 'France', country_code: 'FR', zip: '75002' })
  const history = [...created.events, ...updated.events]
  t.equal(foldOrderState(history)!.fields.shipping_address!.address1, null)
  t.strictSame(foldOrderState(history), foldOrderState(withFullAddresses(history)))
  t.strictSame(foldOrder(history), foldOrder(withFullAddresses(history)))
  // And re-sending the same order decides nothing
  t.strictSame(decideOrderUpsert(command({ address1: null }), foldOrderState(history)).events, [])
})

t.test("a carrier event records the scan's address without its null fields", async (t) => {
  const order = orderHistory(NOW - 3600)
  const { events } = decideTrackingEvents(
    {
      events: [
        {
          tracking_number: 'TN',
          event_type_code: 'origin_scan',
          happened_at: NOW - 60,
          address: { city: 'Lyon', country_code: 'FR' },
        },
      ],
      eventIds: [900],
      now: NOW,
      ids: countingIds(300),
    },
    foldOrderState(order),
  )
  const [address] = addressesIn(events)
  t.strictSame(address, { id: address!.id, city: 'Lyon', country: 'France', country_code: 'FR' })
  const history = [...order, ...events]
  const doc = foldOrder(history)!
  t.strictSame(doc.fulfillments[0]!.trackers[0]!.events[0]!.address, expandAddress(address!))
  t.strictSame(doc, foldOrder(withFullAddresses(history)))
})
