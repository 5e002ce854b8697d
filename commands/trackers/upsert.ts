import type { Runtime } from '../../shared/infra/runtime.ts'
import {
  evolveOrderState,
  ORDER_STATE_VERSION,
  orderStream,
  type OrderState,
} from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { notificationPreferencesOf } from '../notifications/preferences.ts'
import { configuredServices } from '../../projectors/carrier-services/configured.ts'
import { createStateCache } from '../state-cache.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { expectedAfter } from '../../shared/infra/event-store/port.ts'
import { metadataFor, toNewEvents, type CommandPlan, type CommandRequest } from '../execute.ts'
import { decideTrackerUpserts } from '../../shared/domain/orders/upsert-trackers.ts'
import type { TrackerItem, TrackerOutcome } from './schema.ts'

/**
 * Orders as the write side last folded them, and their snapshots. Writing a
 * snapshot costs about as much as reading back and folding three events, and
 * it is worth that only to a later load the memory misses: a load that read
 * back four events or more has the append after it keep a snapshot. An order
 * created with its tracker is three events (the order, its order_placed
 * notification, the tracker), which its first scan reads back and the memory
 * then keeps.
 */
export const createOrderStates = (max: number, maxMb?: number) =>
  createStateCache<OrderState>(
    (order, event) => evolveOrderState(order, event as unknown as OrderEvent),
    max,
    { version: ORDER_STATE_VERSION, readBack: 4 },
    maxMb === undefined ? undefined : { max: maxMb * 2 ** 20, of: orderStateBytes },
  )
export type OrderStates = ReturnType<typeof createOrderStates>

/*
 * Heap bytes of an order's state, roughly: constants measured on states parsed
 * from their snapshots (an order of one tracker with six carrier events takes
 * about 2 KB), and the merchant's own data (line items, custom variables)
 * walked, as an order may carry kilobytes of it.
 */
const ORDER_BYTES = 600
const FULFILLMENT_BYTES = 250
const TRACKER_BYTES = 500
const CARRIER_EVENT_BYTES = 130

/** Roughly the heap an order's state takes, in bytes: what bounds the orders the write side remembers. */
export function orderStateBytes(order: OrderState): number {
  let bytes = ORDER_BYTES + valueBytes(order.fields.custom_variables) + valueBytes(order.fields.line_items)
  for (const f of order.fulfillments)
    bytes += FULFILLMENT_BYTES + valueBytes(f.fields.custom_variables) + valueBytes(f.fields.line_items)
  for (const t of order.trackers) {
    bytes += TRACKER_BYTES + CARRIER_EVENT_BYTES * t.event_ids.length
    bytes += valueBytes(t.fields.custom_variables) + valueBytes(t.fields.line_items)
  }
  return bytes
}

/** Roughly the heap a JSON value takes: a slot for each value, headers for strings, arrays and objects. */
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + value.length
  if (typeof value !== 'object' || value === null) return 8
  let bytes = 24
  if (Array.isArray(value)) for (const item of value) bytes += 8 + valueBytes(item)
  else for (const key in value) bytes += 8 + valueBytes((value as Record<string, unknown>)[key])
  return bytes
}

/**
 * Plans a batch upsert: the items grouped by order, one read and one append
 * per touched order stream, all appended atomically; the 201 body lists every
 * item's outcome in request order.
 */
export function planTrackerUpserts(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids' | 'config'>,
  orders: OrderStates,
  request: CommandRequest,
  items: readonly TrackerItem[],
): () => Promise<CommandPlan> {
  const accountId = request.account.id
  const byOrder = new Map<string, { stream: string; items: TrackerItem[]; indexes: number[] }>()
  items.forEach((item, index) => {
    const group = byOrder.get(item.order_number) ?? {
      stream: orderStream(accountId, item.order_number),
      items: [],
      indexes: [],
    }
    group.items.push(item)
    group.indexes.push(index)
    byOrder.set(item.order_number, group)
  })
  const groups = [...byOrder.values()]

  return async () => {
    const loaded = await orders.loadMany(
      rt.eventStore,
      groups.map((g) => g.stream),
    )
    const now = rt.clock.now()
    const metadata = metadataFor(request, now.getTime())
    const command = {
      now: toUnixSeconds(now),
      accountLanguage: request.account.language_code,
      notifying: notificationPreferencesOf(request.account, rt.config),
      ids: rt.ids,
      carrierServices: groups.some((g) => g.items.some((i) => i.carrier_service_code))
        ? await configuredServices(rt, accountId)
        : [],
    }
    const outcomes: TrackerOutcome[] = new Array(items.length)
    const decided = groups.map((group, g) => {
      const current = loaded[g]!
      const {
        events,
        outcomes: groupOutcomes,
        order,
      } = decideTrackerUpserts({ items: group.items, ...command }, current.state)
      groupOutcomes.forEach((o, i) => {
        outcomes[group.indexes[i]!] = o
      })
      return {
        state: order,
        append: orders.appendOf(current, order, {
          stream: group.stream,
          expected: expectedAfter(current.revision),
          // Validated once, by the request schema (tests/unit/decided-events.test.ts holds the decider to the event schemas).
          events: toNewEvents(events, metadata, { prechecked: true }),
        }),
      }
    })
    return {
      appends: decided.map((d) => d.append),
      status: 201,
      body: { trackers: outcomes },
      readPosition: loaded.reduce((max, l) => (l.position > max ? l.position : max), 0n),
      onAppended: (revisions, position) => orders.appended(decided, revisions, position),
    }
  }
}
