import { type DelayModel, laneKey, learnFrom } from '../../shared/domain/delivery/delay-model.ts'
import { type DeliveryCalendar, WORKING_WEEK } from '../../shared/domain/delivery/business-days.ts'
import { parcelDaysTo } from '../../shared/domain/delivery/delays.ts'
import type { OrderDoc, TrackerDoc } from '../../shared/domain/orders/document.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { orderDocumentKeyOf, trackerOfOrder } from '../orders/tracker-index.ts'
import type { ConfiguredService } from '../../shared/domain/delivery/estimate.ts'

/** The delivered parcels an account's delay model learns from: its latest, enough for every lane of a busy account (the backtest learns from as many). */
export const DELAY_MODEL_SAMPLE = 5000
/** How long a model is kept per account and process: lanes change over weeks, not minutes. */
const TTL_MS = 3600_000

type Cached = { at: number; model: Promise<DelayModel> }
const cachesByRuntime = new WeakMap<object, Map<number, Cached>>()

/** A carrier service's calendar: as configured, a working week otherwise. */
export const calendarIn =
  (services: readonly ConfiguredService[]) =>
  (carrier: string | null, service: string | null): DeliveryCalendar =>
    services.find((s) => s.carrier_code === carrier && s.service_code === service) ?? WORKING_WEEK

/** Where an order's tracker went: its fulfillment's address, else the order's. */
const destinationOf = (order: OrderDoc, tracker: TrackerDoc) => {
  const fulfillment = order.fulfillments.find((f) => f.id === tracker.fulfillment_id)
  const address = fulfillment?.shipping_address ?? order.shipping_address
  return { country: address?.country_code ?? null, state: address?.state ?? null }
}

/**
 * What an account's latest delivered parcels (DELAY_MODEL_SAMPLE at most, each with a
 * promise and a carrier) teach of its lanes (delay-model.ts); kept an hour
 * per account and process, so the sweep reads it at no cost.
 */
export async function delayModelOf(
  rt: Pick<Runtime, 'readStore' | 'clock'>,
  accountId: number,
  calendar: (carrier: string | null, service: string | null) => DeliveryCalendar,
): Promise<DelayModel> {
  const caches = cachesByRuntime.get(rt.readStore) ?? new Map<number, Cached>()
  cachesByRuntime.set(rt.readStore, caches)
  const now = rt.clock.nowMs()
  const known = caches.get(accountId)
  if (known && now - known.at < TTL_MS) return known.model
  const model = learnDelayModel(rt, accountId, calendar)
  caches.set(accountId, { at: now, model })
  model.catch(() => caches.delete(accountId))
  return model
}

async function learnDelayModel(
  rt: Pick<Runtime, 'readStore'>,
  accountId: number,
  calendar: (carrier: string | null, service: string | null) => DeliveryCalendar,
): Promise<DelayModel> {
  const model: DelayModel = new Map()
  const page = await rt.readStore.find(collections.trackers.name, {
    accountId,
    where: [{ field: 'delivery_status_code', op: 'eq', value: 'delivered' }],
    limit: DELAY_MODEL_SAMPLE,
  })
  const orders = await rt.readStore.getManyByKey<OrderDoc>(collections.orders.name, [
    ...new Set(page.docs.map((r) => orderDocumentKeyOf(r.key))),
  ])
  for (const row of page.docs) {
    const order = orders.get(orderDocumentKeyOf(row.key))?.doc
    const tracker = order && trackerOfOrder(order, row.id)
    const promise = tracker?.displayable_expected_delivery_date
    if (!order || !tracker?.carrier || !promise || tracker.shipped_at === null || tracker.delivered_at === null)
      continue
    const destination = destinationOf(order, tracker)
    const service = tracker.carrier_service?.code ?? null
    const days = parcelDaysTo(destination, calendar(tracker.carrier.code, service))
    learnFrom(model, {
      lane: laneKey(tracker.carrier.code, service, destination.country),
      shipped_at: tracker.shipped_at,
      delivered_at: tracker.delivered_at,
      promise,
      scans: tracker.events.map((e) => e.happened_at).sort((a, b) => a - b),
      days,
    })
  }
  return model
}
