import { Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import {
  type ConnectionState,
  connectionStream,
  decideConnection,
  evolveConnection,
} from '../../shared/domain/connections/connection.ts'
import {
  evolveStoreUpdate,
  shopifyEventStatus,
  type StoreUpdateEvent,
  type StoreUpdateState,
  storeUpdateStream,
  toldToStores,
  wooCommerceNote,
} from '../../shared/domain/connections/store-updates.ts'
import type { ConnectionEvent } from '../../shared/domain/connections/connection.ts'
import { isConcurrencyError } from '../../shared/domain/errors.ts'
import type { EventData } from '../../shared/domain/events/index.ts'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { createWorkQueue, type WorkQueue } from '../../shared/infra/jobs/queue.ts'
import { isRedisReady, workerErrors } from '../../shared/infra/jobs/redis.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import type { StoreCall } from '../../shared/infra/stores/calls.ts'
import { shopifyStore } from '../../shared/infra/stores/shopify.ts'
import { wooCommerceStore } from '../../shared/infra/stores/woocommerce.ts'
import { decideOnStream } from '../../commands/execute.ts'
import { trackerOfOrder } from '../../projectors/orders/tracker-index.ts'
import { startReaction } from '../follow.ts'

/*
 * The delivery written back to the stores (docs/connectors.md): each status
 * change of a tracker whose order came from a store is planned as an event
 * (`StoreUpdatePlanned`), then sent by a queued job: a Shopify fulfillment
 * event, a WooCommerce order note (and the order completed once every
 * parcel is delivered). The store is read first, so nothing is written
 * twice; a refused credential marks the connection `unauthorized` and its
 * updates wait for new ones; a sweep queues again whatever is still
 * planned, so Redis losing a job loses nothing.
 */

export interface QueuedStoreUpdate {
  accountId: number
  updateId: number
}

const SWEEP = 'sweep'
const SWEEP_EVERY_MS = 60_000
const SWEEP_LIMIT = 10_000
type UpdatesRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'ids' | 'logger' | 'secrets'>

export const createStoreUpdateQueue = (queueName: string, connection: Redis): WorkQueue<QueuedStoreUpdate> =>
  createWorkQueue<QueuedStoreUpdate>(`${queueName}-store-updates`, connection, {
    jobId: (u) => `store_update_${u.updateId}`,
    // A store busy or down: eleven more tries, 2 s apart then doubling (over an hour in all); the sweep then.
    attempts: 12,
    backoff: { type: 'exponential', delay: 2_000 },
  })

/** The store an order came from: the connection named by the command that created it. */
const connectionOfOrder = (history: readonly { metadata: { correlationId: string } }[]) => {
  const made = /^store_(\d+)_/.exec(history[0]?.metadata.correlationId ?? '')
  return made ? Number(made[1]) : undefined
}

/** Plans each status change a store is told of: one update per change, whatever the retries. */
export function startStoreUpdatePlanning(rt: UpdatesRuntime, queue: WorkQueue<QueuedStoreUpdate>) {
  return startReaction(rt, {
    name: 'store_updates',
    only: () => ({ types: ['TrackerStatusChanged'] }),
    async handle(batch) {
      let planned = false
      // Most accounts connect no store: their status changes are passed over without reading their orders.
      const connected = new Map<number, Promise<boolean>>()
      const hasConnection = (accountId: number) => {
        let known = connected.get(accountId)
        if (!known) {
          known = rt.readStore.count(collections.connections.name, { accountId }).then((n) => n > 0)
          connected.set(accountId, known)
        }
        return known
      }
      for (const recorded of batch) {
        if (recorded.type !== 'TrackerStatusChanged') continue
        const data = recorded.data as EventData<'TrackerStatusChanged'>
        if (!toldToStores(data.to)) continue
        const accountId = recorded.metadata.accountId
        if (!(await hasConnection(accountId))) continue
        const connectionId = connectionOfOrder(await rt.eventStore.readStream(recorded.stream))
        if (connectionId === undefined) continue
        // The change's place in the log is the update's id: a batch handled twice plans it once.
        const updateId = Number(recorded.position)
        const now = rt.clock.now()
        const event: StoreUpdateEvent = {
          type: 'StoreUpdatePlanned',
          data: {
            update_id: updateId,
            connection_id: connectionId,
            order_stream: recorded.stream,
            tracker_id: data.tracker_id,
            status: data.to,
            happened_at: data.happened_at,
            at: toUnixSeconds(now),
          },
        }
        await decideOnStream<StoreUpdateEvent>(
          rt,
          storeUpdateStream(accountId, updateId),
          (history) => (history.length === 0 ? [event] : []),
          () => ({
            accountId,
            correlationId: `store_update_${updateId}`,
            source: 'reaction',
            recordedAt: now.getTime(),
          }),
        )
        // Queued at once where Redis answers; the sweep queues it otherwise.
        await queue.enqueue({ accountId, updateId }).catch(() => false)
        planned = true
      }
      return planned
    },
  })
}

/** The worker sending planned updates, and the sweep queueing again those still planned. */
export async function startStoreUpdateSender(
  rt: UpdatesRuntime,
  queue: WorkQueue<QueuedStoreUpdate>,
  connection: Redis,
) {
  const log = rt.logger.child({ role: 'store-updates' })
  const send = storeUpdateSender(rt)
  const schedule = () => queue.bull.upsertJobScheduler(SWEEP, { every: SWEEP_EVERY_MS }, { name: SWEEP })
  await schedule().catch((error: unknown) => log.warn({ err: error }, 'store update sweep not scheduled'))
  const worker = new Worker<QueuedStoreUpdate>(
    queue.name,
    async (job) => {
      if (job.name !== SWEEP) return send(job.data)
      const pending = await rt.readStore.lookupAll<StoreUpdateState>(
        collections.store_updates.name,
        'state',
        'pending',
        SWEEP_LIMIT,
      )
      for (const { accountId, doc } of pending) await queue.enqueue({ accountId, updateId: doc.update_id })
    },
    { connection, concurrency: 4 },
  )
  worker.on('error', workerErrors(connection, log, 'store update worker error'))
  return {
    async close() {
      await (isRedisReady(connection) ? worker.close() : worker.close(true))
    },
  }
}

function storeUpdateSender(rt: UpdatesRuntime) {
  const allowPrivate = rt.config.SHIPLOG_CONNECTOR_ALLOW_PRIVATE
  const record = async (accountId: number, updateId: number, decided: StoreUpdateEvent | undefined) => {
    if (!decided) return
    await decideOnStream<StoreUpdateEvent>(
      rt,
      storeUpdateStream(accountId, updateId),
      (history) =>
        history.reduce(evolveStoreUpdate, undefined as StoreUpdateState | undefined)?.state === 'pending'
          ? [decided]
          : [],
      () => ({
        accountId,
        correlationId: `store_update_${updateId}`,
        source: 'reaction',
        recordedAt: rt.clock.nowMs(),
      }),
    ).catch((error: unknown) => {
      if (!isConcurrencyError(error)) throw error
    })
  }
  const markUnauthorized = (accountId: number, c: ConnectionState) =>
    decideOnStream<ConnectionEvent>(
      rt,
      connectionStream(accountId, c.id),
      (history) =>
        decideConnection(
          {
            type: 'UpdateConnection',
            data: { changes: { status: 'unauthorized' }, at: toUnixSeconds(rt.clock.now()) },
          },
          history.reduce(evolveConnection, undefined as ConnectionState | undefined),
        ),
      () => ({ accountId, correlationId: `connection_${c.id}`, source: 'reaction', recordedAt: rt.clock.nowMs() }),
    )

  return async ({ accountId, updateId }: QueuedStoreUpdate) => {
    const update = asDomainEvents<StoreUpdateEvent>(
      await rt.eventStore.readStream(storeUpdateStream(accountId, updateId)),
    ).reduce(evolveStoreUpdate, undefined as StoreUpdateState | undefined)
    if (update?.state !== 'pending') return
    const stored = await rt.readStore.get<ConnectionState>(
      collections.connections.name,
      accountId,
      update.connection_id,
    )
    const c = stored?.doc
    const at = toUnixSeconds(rt.clock.now())
    const failed = (error: string): StoreUpdateEvent => ({ type: 'StoreUpdateFailed', data: { error, at } })
    if (!c || c.deleted) return record(accountId, updateId, failed('the connection was deleted'))
    // New credentials make it active again, and the sweep sends what waited.
    if (c.status === 'unauthorized') return
    const order = (await rt.readStore.getByKey<OrderDoc>(collections.orders.name, update.order_stream))?.doc
    const tracker = order && trackerOfOrder(order, update.tracker_id)
    const fulfillment = order?.fulfillments.find((f) => f.id === tracker?.fulfillment_id)
    if (!order || !tracker || !fulfillment) return record(accountId, updateId, failed('the parcel is not found'))
    const outcome =
      c.platform === 'shopify'
        ? await sendToShopify(c, fulfillment.merchant_id, update)
        : await sendToWooCommerce(c, order, tracker, update)
    switch (outcome.kind) {
      case 'ok':
        return record(accountId, updateId, { type: 'StoreUpdateSent', data: { at } })
      case 'unauthorized':
        rt.logger.warn({ connection: c.id, error: outcome.error }, 'store refused the credentials')
        await markUnauthorized(accountId, c)
        return
      case 'retry':
        throw new Error(outcome.error)
      case 'failed':
        return record(accountId, updateId, failed(outcome.error))
    }
  }

  async function sendToShopify(
    c: ConnectionState,
    fulfillmentId: string,
    update: StoreUpdateState,
  ): Promise<StoreCall> {
    const status = shopifyEventStatus(update.status)
    if (!status) return { kind: 'ok', value: undefined }
    const apiUrl = rt.config.SHIPLOG_SHOPIFY_API_URL ?? c.shop
    const store = shopifyStore(apiUrl, rt.secrets.open(c.credentials.access_token!), allowPrivate)
    const has = await store.hasEvent(fulfillmentId, status, update.happened_at)
    if (has.kind !== 'ok') return has
    return has.value ? { kind: 'ok', value: undefined } : store.createEvent(fulfillmentId, status, update.happened_at)
  }

  async function sendToWooCommerce(
    c: ConnectionState,
    order: OrderDoc,
    tracker: OrderDoc['fulfillments'][number]['trackers'][number],
    update: StoreUpdateState,
  ): Promise<StoreCall> {
    const { consumer_key, consumer_secret } = c.credentials
    const store = wooCommerceStore(
      c.shop,
      rt.secrets.open(consumer_key!),
      rt.secrets.open(consumer_secret!),
      allowPrivate,
    )
    const note = wooCommerceNote(update, tracker.tracking_number, tracker.carrier?.name ?? null)
    const has = await store.hasNote(order.merchant_id, note)
    if (has.kind !== 'ok') return has
    if (!has.value) {
      const added = await store.addNote(order.merchant_id, note)
      if (added.kind !== 'ok') return added
    }
    const trackers = order.fulfillments.flatMap((f) => f.trackers)
    const allDelivered = trackers.every(
      (t) => (t.id === tracker.id ? update.status : t.delivery_status_code) === 'delivered',
    )
    if (update.status === 'delivered' && allDelivered && c.complete_when_delivered)
      return store.complete(order.merchant_id)
    return { kind: 'ok', value: undefined }
  }
}
