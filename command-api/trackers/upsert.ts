import { randomUUID } from 'node:crypto'
import type { Runtime } from '../../shared/runtime.ts'
import { orderStream } from '../../shared/orders/document.ts'
import { asDomainEvents } from '../../shared/events/index.ts'
import { foldOrder, type OrderEvent } from '../../shared/orders/evolve.ts'
import { toUnixSeconds } from '../../shared/clock.ts'
import { metadataFor, toNewEvents, type CommandPlan, type CommandRequest } from '../execute.ts'
import { decideTrackerUpserts } from './decide.ts'
import type { TrackerInput, TrackerOutcome } from './schema.ts'

/**
 * Plans a batch upsert: the items grouped by order, one read and one append
 * per touched order stream, all appended atomically; the 201 body lists every
 * item's outcome in request order.
 */
export function planTrackerUpserts(
  rt: Pick<Runtime, 'eventStore' | 'clock' | 'ids'>,
  request: CommandRequest,
  items: readonly TrackerInput[],
): () => Promise<CommandPlan> {
  const accountId = request.caller.account.id
  const byOrder = new Map<string, { stream: string; items: TrackerInput[]; indexes: number[] }>()
  items.forEach((item, index) => {
    const group = byOrder.get(item.order_number) ?? { stream: orderStream(accountId, item.order_number), items: [], indexes: [] }
    group.items.push(item)
    group.indexes.push(index)
    byOrder.set(item.order_number, group)
  })
  const groups = [...byOrder.values()]

  return async () => {
    const histories = await Promise.all(groups.map((g) => rt.eventStore.readStream(g.stream)))
    const now = rt.clock.now()
    const metadata = metadataFor(request, now.getTime())
    const ctx = {
      now: toUnixSeconds(now),
      accountLanguage: request.caller.account.language_code,
      newId: () => rt.ids.next(),
      newUuid: () => randomUUID(),
    }
    const outcomes: TrackerOutcome[] = new Array(items.length)
    let readPosition = 0n
    const appends = groups.map((group, g) => {
      const history = histories[g]!
      const last = history[history.length - 1]
      if (last && last.position > readPosition) readPosition = last.position
      const { events, outcomes: groupOutcomes } = decideTrackerUpserts(
        foldOrder(asDomainEvents<OrderEvent>(history)),
        group.items,
        ctx,
      )
      groupOutcomes.forEach((o, i) => (outcomes[group.indexes[i]!] = o))
      return {
        stream: group.stream,
        expected: last ? last.revision : ('no_stream' as const),
        events: toNewEvents(events, metadata),
      }
    })
    return { appends, status: 201, body: { trackers: outcomes }, readPosition }
  }
}
