import { randomUUID } from 'node:crypto'
import type { Runtime } from '../../shared/runtime.ts'
import { orderStream, type OrderDoc } from '../../shared/orders/document.ts'
import { evolveOrder, type OrderEvent } from '../../shared/orders/evolve.ts'
import { createStateCache } from '../state-cache.ts'
import { toUnixSeconds } from '../../shared/clock.ts'
import { expectedAfter } from '../../shared/event-store/port.ts'
import { metadataFor, toNewEvents, type CommandPlan, type CommandRequest } from '../execute.ts'
import { decideTrackerUpserts } from './decide.ts'
import type { TrackerInput, TrackerOutcome } from './schema.ts'

/** Orders as the write side last folded them. */
export const createOrderStates = (max: number) =>
  createStateCache<OrderDoc>((order, event) => evolveOrder(order, event as unknown as OrderEvent), max)
export type OrderStates = ReturnType<typeof createOrderStates>

/**
 * Plans a batch upsert: the items grouped by order, one read and one append
 * per touched order stream, all appended atomically; the 201 body lists every
 * item's outcome in request order.
 */
export function planTrackerUpserts(
  rt: Pick<Runtime, 'eventStore' | 'clock' | 'ids'>,
  orders: OrderStates,
  request: CommandRequest,
  items: readonly TrackerInput[],
): () => Promise<CommandPlan> {
  const accountId = request.caller.account.id
  const byOrder = new Map<string, { stream: string; items: TrackerInput[]; indexes: number[] }>()
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
    const ctx = {
      now: toUnixSeconds(now),
      accountLanguage: request.caller.account.language_code,
      newId: () => rt.ids.next(),
      newUuid: () => randomUUID(),
    }
    const outcomes: TrackerOutcome[] = new Array(items.length)
    const decided = groups.map((group, g) => {
      const current = loaded[g]!
      const { events, outcomes: groupOutcomes, order } = decideTrackerUpserts(current.state, group.items, ctx)
      groupOutcomes.forEach((o, i) => {
        outcomes[group.indexes[i]!] = o
      })
      return {
        order,
        append: {
          stream: group.stream,
          expected: expectedAfter(current.revision),
          events: toNewEvents(events, metadata),
        },
      }
    })
    return {
      appends: decided.map((d) => d.append),
      status: 201,
      body: { trackers: outcomes },
      readPosition: loaded.reduce((max, l) => (l.position > max ? l.position : max), 0n),
      onAppended(revisions, position) {
        for (const { order, append } of decided) {
          const revision = revisions.get(append.stream)
          if (order && revision !== undefined) orders.appended(append, order, revision, position)
        }
      },
    }
  }
}
