import type { ParcelStory } from '../../shared/domain/delivery/delay-backtest.ts'
import { laneKey } from '../../shared/domain/delivery/delay-model.ts'
import { parcelDaysTo } from '../../shared/domain/delivery/delays.ts'
import { destinationOf, evolveDeliveryFacts, type OrderDeliveryFacts } from '../../shared/domain/delivery/facts.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { configuredServices } from '../carrier-services/configured.ts'
import { calendarIn } from './delay-lessons.ts'

type FoldedOrders = ReadonlyMap<string, { accountId: number; facts: OrderDeliveryFacts }>

/**
 * Gathers each parcel's story (its lane, promise, scans and delivery) from
 * the order events it is shown: the delay backtest's input, for the CLI over
 * the whole log and for the console over one account's recent orders.
 */
export function parcelStoryFolder() {
  const scans = new Map<string, number[]>()
  const created = new Map<string, number>()
  return {
    see(stream: string, event: OrderEvent) {
      const key = `${stream}#${(event.data as { tracker_id?: number }).tracker_id}`
      if (event.type === 'TrackerCreated') created.set(key, event.data.at)
      if (event.type !== 'TrackingEventRecorded') return
      const seen = scans.get(key) ?? []
      seen.push(event.data.event.happened_at)
      scans.set(key, seen)
    },
    /** Each delivered parcel that had a promise when it shipped, per account. */
    async tell(rt: Pick<Runtime, 'readStore'>, orders: FoldedOrders) {
      const byAccount = new Map<number, ParcelStory[]>()
      const calendars = new Map<number, ReturnType<typeof calendarIn>>()
      for (const [stream, { accountId, facts }] of orders) {
        if (!calendars.has(accountId)) calendars.set(accountId, calendarIn(await configuredServices(rt, accountId)))
        const calendar = calendars.get(accountId)!
        for (const p of facts.parcels) {
          if (!p.carrier_code || !p.promised_date || p.shipped_at === null || p.delivered_at === null) continue
          const destination = destinationOf(facts, p.fulfillment_id)
          const key = `${stream}#${p.tracker_id}`
          const stories = byAccount.get(accountId) ?? []
          stories.push({
            lane: laneKey(p.carrier_code, p.service_code, destination?.country ?? null),
            carrier_code: p.carrier_code,
            service_code: p.service_code ?? '',
            created_at: created.get(key) ?? p.shipped_at,
            shipped_at: p.shipped_at,
            delivered_at: p.delivered_at,
            promise: p.promised_date,
            scans: (scans.get(key) ?? []).sort((a, b) => a - b),
            days: parcelDaysTo(
              { country: destination?.country ?? null, state: destination?.state ?? null },
              calendar(p.carrier_code, p.service_code),
            ),
          })
          byAccount.set(accountId, stories)
        }
      }
      return byAccount
    },
  }
}

/** One account's parcel stories from the given order streams, read one by one (the console's recent orders). */
export async function parcelStoriesOf(
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  accountId: number,
  streams: readonly string[],
) {
  const folder = parcelStoryFolder()
  const orders = new Map<string, { accountId: number; facts: OrderDeliveryFacts }>()
  for (const stream of streams) {
    let facts: OrderDeliveryFacts | undefined
    for (const event of asDomainEvents<OrderEvent>(await rt.eventStore.readStream(stream))) {
      facts = evolveDeliveryFacts(facts, event)
      folder.see(stream, event)
    }
    if (facts) orders.set(stream, { accountId, facts })
  }
  return (await folder.tell(rt, orders)).get(accountId) ?? []
}
