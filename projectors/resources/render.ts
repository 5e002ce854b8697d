import type { z } from 'zod'
import type {
  Address,
  Carrier,
  CarrierService,
  Notification,
  NotificationType,
} from '../../shared/domain/events/resources.ts'
import type {
  CarrierEventDoc,
  FulfillmentDoc,
  LineItemDoc,
  OrderDoc,
  TrackerDoc,
} from '../../shared/domain/orders/document.ts'
import type { Expansion } from './expansion.ts'
import type { NotificationChannel } from '../../shared/domain/vocabulary/channels.ts'
import { notificationTypeOf } from '../../shared/domain/notifications/types.ts'
import type * as schemas from './schemas.ts'

/*
 * One renderer per resource of the spec, used by every route. A nested
 * resource that was not expanded is a stub: `{object, id}` (a carrier shows its
 * code), a list `{object: "list", data: [stubs]}`; never omitted.
 */
type Output<S extends z.ZodType> = z.output<S>

export const list = <T>(data: T[]) => ({ object: 'list' as const, data })

const stub = <O extends string>(object: O, item: { id: number }) => ({ object, id: item.id })

/** Lists come in descending id order (the list envelope's rule); a list kept in another order says so. */
const descendingIds = <T extends { id: number }>(items: readonly T[]) => [...items].sort((a, b) => b.id - a.id)

/** A nested list, expanded or stubbed, newest id first, as every list of the API. */
const nestedList = <T extends { id: number }, O extends string, R>(
  expansion: Expansion,
  path: string,
  object: O,
  items: readonly T[],
  render: (item: T) => R,
) => {
  const sorted = descendingIds(items)
  return list<R | { object: O; id: number }>(
    expansion.has(path) ? sorted.map(render) : sorted.map((i) => stub(object, i)),
  )
}

/** A nested resource, expanded or stubbed. */
const nestedOne = <T extends { id: number }, O extends string, R>(
  expansion: Expansion,
  path: string,
  object: O,
  item: T,
  render: (item: T) => R,
) => (expansion.has(path) ? render(item) : stub(object, item))

const nestedOptional = <T extends { id: number }, O extends string, R>(
  expansion: Expansion,
  path: string,
  object: O,
  item: T | null,
  render: (item: T) => R,
) => (item === null ? null : nestedOne(expansion, path, object, item, render))

export const renderAddress = (a: Address): Output<typeof schemas.addressResource> => ({ object: 'address', ...a })

export const renderCarrier = (c: Carrier): Output<typeof schemas.carrierResource> => ({
  object: 'carrier',
  code: c.code,
  name: c.name,
})

export const renderCarrierService = (s: CarrierService): Output<typeof schemas.carrierServiceResource> => ({
  object: 'carrier_service',
  ...s,
})

export const renderLineItem = (li: LineItemDoc): Output<typeof schemas.lineItemResource> => ({
  object: 'line_item',
  ...li,
})

/** A notification type; `enabled` and `channels` (the account's settings) where the account's catalogue is listed. */
export const renderNotificationType = (
  t: NotificationType,
  account?: { enabled: boolean; channels: readonly NotificationChannel[] },
): Output<typeof schemas.notificationTypeResource> => ({
  object: 'notification_type',
  ...t,
  ...(account === undefined ? {} : { enabled: account.enabled, channels: [...account.channels] }),
})

export function renderNotification(
  n: Notification,
  x: Expansion,
  prefix: string,
): Output<typeof schemas.notificationResource> {
  return {
    object: 'notification',
    id: n.id,
    created_at: n.created_at,
    language_code: n.language_code,
    notification_payloads: nestedList(
      x,
      `${prefix}notification_payloads`,
      'notification_payload',
      n.notification_payloads,
      (p) => ({
        object: 'notification_payload',
        ...p,
      }),
    ),
    notification_type: nestedOne(x, `${prefix}notification_type`, 'notification_type', n.notification_type, (t) =>
      renderNotificationType(notificationTypeOf(t)),
    ),
  }
}

export function renderEvent(e: CarrierEventDoc, x: Expansion, prefix: string): Output<typeof schemas.eventResource> {
  return { object: 'event', ...e, address: nestedOptional(x, `${prefix}address`, 'address', e.address, renderAddress) }
}

/** `prefix` is where the tracker sits in the expansion: `fulfillments.trackers.` under an order, `` on its own. */
export function renderTracker(t: TrackerDoc, x: Expansion, prefix: string): Output<typeof schemas.trackerResource> {
  const { fulfillment_id: _internal, delay_handled: _console, delay_reopened: _reopened, ...fields } = t
  return {
    object: 'tracker',
    ...fields,
    carrier:
      t.carrier && (x.has(`${prefix}carrier`) ? renderCarrier(t.carrier) : { object: 'carrier', code: t.carrier.code }),
    carrier_service: t.carrier_service && renderCarrierService(t.carrier_service),
    events: nestedList(x, `${prefix}events`, 'event', t.events, (e) => renderEvent(e, x, `${prefix}events.`)),
    notifications: nestedList(x, `${prefix}notifications`, 'notification', t.notifications, (n) =>
      renderNotification(n, x, `${prefix}notifications.`),
    ),
    line_items: nestedList(x, `${prefix}line_items`, 'line_item', t.line_items, renderLineItem),
    claims: list(t.claims),
    delay: t.delay ?? null,
  }
}

export function renderFulfillment(
  f: FulfillmentDoc,
  x: Expansion,
  prefix: string,
): Output<typeof schemas.fulfillmentResource> {
  return {
    object: 'fulfillment',
    ...f,
    line_items: nestedList(x, `${prefix}line_items`, 'line_item', f.line_items, renderLineItem),
    shipping_address: nestedOptional(x, `${prefix}shipping_address`, 'address', f.shipping_address, renderAddress),
    trackers: nestedList(x, `${prefix}trackers`, 'tracker', f.trackers, (t) =>
      renderTracker(t, x, `${prefix}trackers.`),
    ),
    notifications: nestedList(x, `${prefix}notifications`, 'notification', f.notifications, (n) =>
      renderNotification(n, x, `${prefix}notifications.`),
    ),
  }
}

export function renderOrder(o: OrderDoc, x: Expansion): Output<typeof schemas.orderResource> {
  // The tracking page's link id is the page's own business, never the API's.
  const { tracking_link_id: _link, ...fields } = o
  return {
    object: 'order',
    ...fields,
    fulfillments: nestedList(x, 'fulfillments', 'fulfillment', o.fulfillments, (f) =>
      renderFulfillment(f, x, 'fulfillments.'),
    ),
    line_items: nestedList(x, 'line_items', 'line_item', o.line_items, renderLineItem),
    notifications: nestedList(x, 'notifications', 'notification', o.notifications, (n) =>
      renderNotification(n, x, 'notifications.'),
    ),
    shipping_address: nestedOptional(x, 'shipping_address', 'address', o.shipping_address, renderAddress),
  }
}
