import { evolveAccount, type AccountDoc } from '../shared/accounts/account.ts'
import type { RecordedEvent } from '../shared/event-store/port.ts'
import { accountEventTypes, orderEventTypes, type RecordedDomainEvent } from '../shared/events/index.ts'
import type { OrderDoc } from '../shared/orders/document.ts'
import { evolveOrder, type OrderEvent } from '../shared/orders/evolve.ts'
import { collections } from '../shared/read-models.ts'
import { streamProjection, type Projection } from './projection.ts'

type Recorded<E extends { type: string }> = Extract<RecordedDomainEvent, { type: E['type'] }>

const isOneOf =
  <E extends RecordedEvent>(types: readonly string[]) =>
  (event: RecordedEvent): event is E =>
    types.includes(event.type)

export const accountsProjection = streamProjection<AccountDoc, Recorded<{ type: 'AccountCreated' }>>({
  name: 'accounts',
  collection: collections.accounts.name,
  handles: isOneOf(accountEventTypes),
  evolve: (_doc, event) => evolveAccount(event.data),
  id: (doc) => doc.id,
  fields: (doc) => ({ private_key_hash: doc.private_key_hash, public_key_hash: doc.public_key_hash }),
})

export const ordersProjection = streamProjection<OrderDoc, Recorded<OrderEvent>>({
  name: 'orders',
  collection: collections.orders.name,
  handles: isOneOf(orderEventTypes),
  evolve: (doc, event) => evolveOrder(doc, event as OrderEvent),
  id: (doc) => doc.id,
  fields: (doc) => ({
    email: doc.email,
    order_number: doc.order_number,
    created_at: doc.created_at,
    ordered_at: doc.ordered_at,
  }),
})

/** Every projection, by name. */
export const projections: readonly Projection[] = [accountsProjection, ordersProjection]
