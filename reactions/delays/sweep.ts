import { Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { isConcurrencyError } from '../../shared/domain/errors.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { laneKey, lessonsOf } from '../../shared/domain/delivery/delay-model.ts'
import { DEFAULT_DELAY_RULES } from '../../shared/domain/delivery/delays.ts'
import { decideDelay } from '../../shared/domain/orders/delays.ts'
import { foldOrderState } from '../../shared/domain/orders/state.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { createWorkQueue, type WorkQueue } from '../../shared/infra/jobs/queue.ts'
import { isRedisReady, workerErrors } from '../../shared/infra/jobs/redis.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { decideOnStream } from '../../commands/execute.ts'
import { notificationPreferencesOf } from '../../commands/notifications/preferences.ts'
import type { AccountDoc } from '../../projectors/accounts/account.ts'
import { configuredServices } from '../../projectors/carrier-services/configured.ts'
import { calendarIn, delayModelOf } from '../../projectors/deliveries/delay-lessons.ts'
import { orderDocumentKeyOf, type TrackerIndexDoc } from '../../projectors/orders/tracker-index.ts'

/** One look at a tracker's delay, due at `due` (Unix seconds): the tracker's index entry, by its key. */
export interface DelayCheck {
  accountId: number
  key: string
  due: number
}

const TRACKERS = collections.trackers.name
/** The scheduled job's name: the checks are `run`. */
const SWEEP = 'sweep'
/** Trackers queued per sweep at most; the rest are found by the next. */
const MAX_DUE_PER_SWEEP = 50_000

export const createDelayQueue = (queueName: string, connection: Redis): WorkQueue<DelayCheck> =>
  createWorkQueue<DelayCheck>(`${queueName}-delays`, connection, {
    // One job per tracker and deadline: a sweep that finds it again adds nothing.
    jobId: (check) => `delay_${check.key}_${check.due}`,
    attempts: 3,
    backoff: { type: 'exponential', delay: 5_000 },
  })

type SweepRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'ids' | 'logger'>

/**
 * Delays without waiting for a scan: every SHIPLOG_DELAY_SWEEP_INTERVAL a
 * scheduled sweep finds, through the trackers index, the trackers whose delay
 * is due a look before the next sweep, and queues each as a delayed job at
 * its deadline; a worker decides each through the order's stream. Redis
 * holds nothing the index does not: restarted empty, it is refilled by the
 * next sweep, and a deadline it lost is found overdue.
 */
export async function startDelaySweep(
  rt: SweepRuntime,
  queue: WorkQueue<DelayCheck>,
  connections: { queue: Redis; worker: () => Redis },
) {
  const log = rt.logger.child({ role: 'delay-sweep' })
  const every = rt.config.SHIPLOG_DELAY_SWEEP_INTERVAL
  const check = delayChecker(rt)
  let sweeps = 0
  const sweep = async () => {
    const now = toUnixSeconds(rt.clock.now())
    const due = await rt.readStore.lookupDue<TrackerIndexDoc>(
      TRACKERS,
      'delay_check_at',
      now + every,
      MAX_DUE_PER_SWEEP,
    )
    for (const { key, accountId, doc } of due) {
      const at = doc.delay_check_at!
      await queue.enqueue({ accountId, key, due: at }, at > now ? at * 1000 : undefined)
    }
    sweeps++
  }
  // The sweep is a scheduled job of the same queue: one worker, one connection, runs both.
  const schedule = () => queue.bull.upsertJobScheduler(SWEEP, { every: every * 1000 }, { name: SWEEP })
  await schedule()
  const reschedule = () => {
    schedule().catch((error: unknown) => log.warn({ err: error }, 'delay sweep schedule not restored'))
  }
  connections.queue.on('ready', reschedule)
  const connection = connections.worker()
  const worker = new Worker<DelayCheck>(
    queue.name,
    async (job) => {
      if (job.name === SWEEP) return sweep()
      return check(job.data).catch((error: unknown) => {
        // The order moved meanwhile: its tracker is looked at again at the next sweep.
        if (isConcurrencyError(error)) return
        throw error
      })
    },
    // A check a crashed process held is taken up again within seconds, as the jobs worker's are.
    { connection, concurrency: 8, lockDuration: 5_000, stalledInterval: 2_000 },
  )
  worker.on('error', workerErrors(connection, log, 'delay sweep worker error'))
  log.info({ every_seconds: every }, 'delay sweep started')

  return {
    sweeps: () => sweeps,
    async close() {
      connections.queue.off('ready', reschedule)
      await (isRedisReady(connection) ? worker.close() : worker.close(true))
      connection.disconnect()
    },
  }
}

/**
 * One look at one tracker, as the account's rules, carrier services and
 * delivered parcels have it now: decided on the order's stream, so a scan
 * recorded meanwhile is seen.
 */
function delayChecker(rt: SweepRuntime) {
  return async ({ accountId, key }: DelayCheck) => {
    const entry = await rt.readStore.getByKey<TrackerIndexDoc>(TRACKERS, key)
    const now = toUnixSeconds(rt.clock.now())
    // Looked at since, or moved later by a newer event: that deadline has its own job.
    if (!entry || entry.doc.delay_check_at == null || entry.doc.delay_check_at > now) return
    const account = await rt.readStore.get<AccountDoc>(collections.accounts.name, accountId, accountId)
    if (!account || account.doc.deleted) return
    const calendar = calendarIn(await configuredServices(rt, accountId))
    const model = await delayModelOf(rt, accountId, calendar)
    const command = {
      tracker_id: entry.doc.id,
      now,
      rules: account.doc.delay_rules ?? DEFAULT_DELAY_RULES,
      calendar,
      lessons: (lane: { carrier_code: string | null; service_code: string | null; destination: string | null }) =>
        lane.carrier_code === null
          ? undefined
          : lessonsOf(model, laneKey(lane.carrier_code, lane.service_code, lane.destination)),
      notifying: notificationPreferencesOf(account.doc, rt.config),
      ids: rt.ids,
    }
    await decideOnStream<OrderEvent>(
      rt,
      orderDocumentKeyOf(key),
      (history) => decideDelay(command, foldOrderState(history)),
      () => ({
        accountId,
        correlationId: `delay_${entry.doc.id}_${now}`,
        source: 'reaction',
        recordedAt: rt.clock.nowMs(),
      }),
    )
  }
}
