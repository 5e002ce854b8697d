import { foldOrder } from '../../shared/domain/orders/evolve-document.ts'
import { Expansion, orderExpandPaths } from '../../projectors/resources/expansion.ts'
import { renderOrder } from '../../projectors/resources/render.ts'
import { isConcurrencyError, isShiplogError } from '../../shared/domain/errors.ts'
import type { JobResult } from '../../shared/domain/events/job-events.ts'
import { foldOrderState, orderStream } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { decideOrderUpsert, orderNumberOf } from '../../shared/domain/orders/upsert-order.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { type AppendRequest, type EventMetadata, expectedAfter } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { errorBody, toShiplogError } from '../../shared/infra/error-answers.ts'
import { parseRequestPart, RequestValidationError } from '../../shared/infra/request-issues.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { notificationPreferencesOf } from '../notifications/preferences.ts'
import { configuredServices } from '../../projectors/carrier-services/configured.ts'
import { toNewEvents } from '../execute.ts'
import type { JobContext } from '../jobs/context.ts'
import { type OrderBody, orderBody } from './schema.ts'

export const ORDERS_PATH = '/v2/orders'
const fullOrder = Expansion.full(orderExpandPaths)

/** Whose order it is, as the decision needs it. */
export type OrderAccount = Pick<
  AccountDoc,
  'id' | 'language_code' | 'disabled_notification_types' | 'notification_channels'
>

/**
 * Reads the order's stream, decides the upsert and gives the append to make
 * with the answer it earns: `201` created or `200` updated, with the order
 * fully expanded as it stands after it. A re-send that changes nothing
 * appends nothing.
 */
export async function planOrderUpsert(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids' | 'config'>,
  account: OrderAccount,
  order: OrderBody,
  metadata: (recordedAt: number) => EventMetadata,
) {
  const stream = orderStream(account.id, orderNumberOf(order))
  const recorded = await rt.eventStore.readStream(stream)
  const history = asDomainEvents<OrderEvent>(recorded)
  const namesService = order.fulfillments?.some((f) => f.trackers?.some((t) => t.carrier_service_code))
  const now = rt.clock.now()
  const { events, created } = decideOrderUpsert(
    {
      order,
      now: toUnixSeconds(now),
      accountLanguage: account.language_code,
      ids: rt.ids,
      carrierServices: namesService ? await configuredServices(rt, account.id) : [],
      notifying: notificationPreferencesOf(account, rt.config),
    },
    foldOrderState(history),
  )
  const doc = foldOrder(events, foldOrder(history))!
  const append: AppendRequest = {
    stream,
    expected: expectedAfter(recorded.length - 1),
    // Validated once, by orderBody (tests/unit/decided-events.test.ts holds the decider to the event schemas).
    events: toNewEvents(events, metadata(now.getTime()), { prechecked: true }),
  }
  return {
    append,
    status: created ? 201 : 200,
    body: renderOrder(doc, fullOrder) as Record<string, unknown>,
    readPosition: recorded.at(-1)?.position ?? 0n,
  }
}

/** The answer a refused order gets, as the single-order route would give it. */
const refused = (error: unknown, requestId: string): JobResult => {
  const shiplogError = toShiplogError(error)
  return { status: shiplogError.status, body: errorBody(ORDERS_PATH, shiplogError, requestId) }
}

/** Bounded retries of one order meeting a concurrent change to its stream. */
const MAX_ATTEMPTS = 8

/**
 * The batch_create job: each order as POST /v2/orders would take it, its
 * events appended atomically with its result, so a resumed job applies none
 * twice. A bad order fails alone, with the answer the route would give.
 */
export async function runBatchCreate(ctx: JobContext, account: OrderAccount) {
  const [queued] = asDomainEvents(await ctx.rt.eventStore.readStream(ctx.stream, 0))
  if (queued?.type !== 'JobQueued') throw new Error(`job ${ctx.job.id} has no JobQueued event`)
  const orders = (queued.data.payload.body as { orders: unknown[] }).orders
  const requestId = `job_${ctx.job.id}`
  const metadata = (recordedAt: number) => ({ ...ctx.metadata(), recordedAt })
  for (let i = ctx.job.items_processed; i < orders.length; i++) {
    const at = () => toUnixSeconds(ctx.rt.clock.now())
    const record = (result: JobResult, appends: AppendRequest[] = []) =>
      ctx.appendWithProgress(appends, { type: 'RecordItems', chunk_id: ctx.rt.ids.next(), results: [result], at: at() })
    const parsed = parseRequestPart(orderBody, orders[i])
    if (!parsed.success) {
      await record(refused(new RequestValidationError(parsed.error.issues, 'body', orders[i]), requestId))
      continue
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const plan = await planOrderUpsert(ctx.rt, account, parsed.data, metadata)
        await record({ status: plan.status, body: plan.body }, [plan.append])
        break
      } catch (error) {
        if (isConcurrencyError(error) && error.stream !== ctx.stream && attempt < MAX_ATTEMPTS) continue
        if (!isShiplogError(error) || isConcurrencyError(error)) throw error
        await record(refused(error, requestId))
        break
      }
    }
  }
}
