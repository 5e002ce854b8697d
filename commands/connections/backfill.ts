import type { ConnectionState } from '../../shared/domain/connections/connection.ts'
import { isConcurrencyError, isShiplogError } from '../../shared/domain/errors.ts'
import type { JobResult } from '../../shared/domain/events/job-events.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import type { AppendRequest } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { StoreCall } from '../../shared/infra/stores/calls.ts'
import { shopifyStore } from '../../shared/infra/stores/shopify.ts'
import { wooCommerceStore } from '../../shared/infra/stores/woocommerce.ts'
import { JobFailure, type JobContext } from '../jobs/context.ts'
import { type OrderAccount, planOrderUpsert } from '../orders/upsert.ts'
import { orderOfStore } from './store-orders.ts'

/** Tries of one upsert that met a concurrent change of its order (a webhook of the same order, say). */
const MAX_ATTEMPTS = 5

/** The store's orders since a time, oldest first, page by page, whatever the platform pages by. */
async function* ordersOf(ctx: JobContext, c: ConnectionState, since: number): AsyncGenerator<unknown> {
  const { config, secrets } = ctx.rt
  const allowPrivate = config.SHIPLOG_CONNECTOR_ALLOW_PRIVATE
  const settled = <T>(call: StoreCall<T>): T => {
    if (call.kind === 'ok') return call.value
    if (call.kind === 'retry') throw new Error(call.error) // the job is tried again, from the order it reached
    throw new JobFailure(call.kind === 'unauthorized' ? 'The store refused the credentials' : call.error)
  }
  if (c.platform === 'shopify') {
    const store = shopifyStore(
      config.SHIPLOG_SHOPIFY_API_URL ?? c.shop,
      secrets.open(c.credentials.access_token!),
      allowPrivate,
    )
    for (let cursor: string | null = null; ; ) {
      const page: { orders: unknown[]; next: string | null } = settled(await store.ordersSince(since, cursor))
      yield* page.orders
      if (!page.next) return
      cursor = page.next
    }
  }
  const { consumer_key, consumer_secret } = c.credentials
  const store = wooCommerceStore(c.shop, secrets.open(consumer_key!), secrets.open(consumer_secret!), allowPrivate)
  for (let number = 1; ; number++) {
    const page = settled(await store.ordersSince(since, number))
    yield* page.orders
    if (!page.more) return
  }
}

/**
 * `connections.backfill`: the store's past orders since a time, each
 * through POST /v2/orders' own command with its result recorded like every
 * job's; a job resumed after a stop pages again from the start and skips the
 * orders it already recorded (an upsert of the same order changes nothing).
 */
export async function runBackfill(ctx: JobContext, account: OrderAccount) {
  const [queued] = asDomainEvents(await ctx.rt.eventStore.readStream(ctx.stream, 0))
  if (queued?.type !== 'JobQueued') throw new Error(`job ${ctx.job.id} has no JobQueued event`)
  const { connection_id, since } = queued.data.payload.body as { connection_id: number; since: number }
  const stored = await ctx.rt.readStore.get<ConnectionState>(collections.connections.name, ctx.accountId, connection_id)
  if (!stored || stored.doc.deleted) throw new JobFailure('The connection was deleted')
  const c = stored.doc
  // Made by the store's connection, as a webhook's orders are: their deliveries are written back to it.
  const metadata = (recordedAt: number) => ({
    ...ctx.metadata(),
    correlationId: `store_${c.id}_backfill_${ctx.job.id}`,
    recordedAt,
  })
  const record = (result: JobResult, appends: AppendRequest[] = []) =>
    ctx.appendWithProgress(appends, {
      type: 'RecordItems',
      chunk_id: ctx.rt.ids.next(),
      results: [result],
      at: toUnixSeconds(ctx.rt.clock.now()),
    })
  let index = 0
  for await (const payload of ordersOf(ctx, c, since)) {
    if (index++ < ctx.job.items_processed) continue
    const mapped = orderOfStore(c.platform, payload)
    if (!mapped.ok) {
      await record({ status: 422, body: { errors: { details: mapped.error } } })
      continue
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const plan = await planOrderUpsert(ctx.rt, account, mapped.order, metadata)
        await record({ status: plan.status, body: plan.body as Record<string, unknown> }, [plan.append])
        break
      } catch (error) {
        if (isConcurrencyError(error) && error.stream !== ctx.stream && attempt < MAX_ATTEMPTS) continue
        if (!isShiplogError(error) || isConcurrencyError(error)) throw error
        await record({ status: error.status, body: { errors: { details: error.message } } })
        break
      }
    }
  }
}
