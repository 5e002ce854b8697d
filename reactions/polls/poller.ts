import { Queue, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { TrackingApi } from '../../shared/domain/carriers/tracking-apis.ts'
import { isConcurrencyError } from '../../shared/domain/errors.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import {
  decidePoll,
  evolvePollState,
  isStale,
  POLL_WINDOW_SECONDS,
  type PollState,
  pollsSpentOn,
  type TrackerPolled,
} from '../../shared/domain/orders/polling.ts'
import type { CarrierEventInput } from '../../shared/domain/orders/record-tracking-events.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import type { CarrierTrackingApi } from '../../shared/infra/carriers/port.ts'
import { createWorkQueue, quietQueue, type WorkQueue } from '../../shared/infra/jobs/queue.ts'
import { isRedisReady, workerErrors } from '../../shared/infra/jobs/redis.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { StoredDocument } from '../../shared/infra/read-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type CommandRequest, decideOnStream, executeCommand } from '../../commands/execute.ts'
import { carrierEventSchema, planTrackingEvents, type TrackingEventResult } from '../../commands/trackers/events.ts'
import { createOrderStates } from '../../commands/trackers/upsert.ts'
import type { AccountDoc } from '../../projectors/accounts/account.ts'
import { orderDocumentKeyOf, type TrackerIndexDoc, trackerByKey } from '../../projectors/orders/tracker-index.ts'

/** One poll: the tracker's index entry, by its key. `refresh`: asked for now, due or not. */
export interface QueuedPoll {
  accountId: number
  key: string
  refresh?: boolean
}

export type PollQueues = ReadonlyMap<TrackingApi, WorkQueue<QueuedPoll>>

const TRACKERS = collections.trackers.name
/** Trackers queued per tick at most; the rest are due at the next. */
const MAX_DUE_PER_TICK = 50_000

/** One queue per carrier API, so each has its own rate limit; a tracker waits in it once. */
export function createPollQueues(
  jobQueueName: string,
  connection: Redis,
  carriers: readonly PolledCarrier[],
): PollQueues {
  return new Map(
    carriers.map(({ api }) => [
      api.name,
      createWorkQueue<QueuedPoll>(`${jobQueueName}-poll-${api.name}`, connection, {
        jobId: (poll) => `${poll.refresh ? 'refresh' : 'poll'}_${poll.key}`,
        // Server errors and timeouts: three more tries, 30 s apart then doubling.
        attempts: 4,
        backoff: { type: 'exponential', delay: 30_000 },
      }),
    ]),
  )
}

/** A carrier API the poller asks, and the requests a second it may make. */
export interface PolledCarrier {
  api: CarrierTrackingApi
  perSecond: number
}

/** How polling went, for /metrics. */
export interface PollingStats {
  polls: Map<string, number>
  /** Ticks this process handled, each once it queued the trackers due. */
  ticks: number
  stopped: Set<TrackingApi>
}

type PollerRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'ids' | 'logger'>

/**
 * Carrier polling on BullMQ: a job scheduler ticks every
 * SHIPLOG_POLL_INTERVAL and queues the trackers due (not final, of a carrier
 * with a configured API, created in the last 60 days); each carrier's worker
 * asks its API, within its rate limit, and records what it says through the
 * same command as the push API, then when to ask again. A tracker is queued
 * once under its own job id, so several worker processes never poll it twice.
 */
export async function startCarrierPolling(
  rt: PollerRuntime,
  queues: PollQueues,
  carriers: readonly PolledCarrier[],
  connections: { queue: Redis; worker: () => Redis },
) {
  const log = rt.logger.child({ role: 'carrier-polling' })
  const base = rt.config.SHIPLOG_POLL_INTERVAL
  const stats: PollingStats = { polls: new Map(), ticks: 0, stopped: new Set() }
  const poll = trackerPoller(rt, queues, stats, log)
  const workers = carriers.map(({ api, perSecond }) => {
    const queue = queues.get(api.name)!
    const connection = connections.worker()
    const worker = new Worker<QueuedPoll>(
      queue.name,
      async (job) =>
        poll(api, job).catch((error: unknown) => {
          // A tracker whose order moved meanwhile is polled again at the next tick.
          if (isConcurrencyError(error)) return
          throw error
        }),
      // A call may carry several numbers: enough polls run at once to fill one, as many a second as calls allowed.
      {
        connection,
        concurrency: Math.max(4, api.perCall),
        limiter: { max: perSecond * api.perCall, duration: 1000 },
        lockDuration: 30_000,
      },
    )
    worker.on('error', workerErrors(connection, log, 'carrier poll worker error'))
    return { worker, connection }
  })

  // The tick: one scheduled job at a time, whichever worker process takes it.
  const tickQueue = quietQueue(new Queue(`${rt.config.QUEUE_NAME}-poll-ticks`, { connection: connections.queue }))
  const schedule = () => tickQueue.upsertJobScheduler('poll-due-trackers', { every: base * 1000 }, { name: 'tick' })
  await schedule()
  // The schedule lives in Redis: a Redis that comes back empty gets it again (due trackers are in the read store).
  const reschedule = () => {
    schedule().catch((error: unknown) => log.warn({ err: error }, 'carrier poll schedule not restored'))
  }
  connections.queue.on('ready', reschedule)
  const tickConnection = connections.worker()
  const ticker = new Worker(
    tickQueue.name,
    async () => {
      const now = toUnixSeconds(rt.clock.now())
      const due = await rt.readStore.lookupDue<TrackerIndexDoc>(TRACKERS, 'next_poll_at', now, MAX_DUE_PER_TICK)
      for (const { key, accountId, doc } of due) {
        const queue = doc.poll && queues.get(doc.poll.api)
        if (!queue || doc.poll!.since < now - POLL_WINDOW_SECONDS) continue
        await queue.enqueue({ accountId, key })
      }
      stats.ticks++
    },
    { connection: tickConnection },
  )
  ticker.on('error', workerErrors(tickConnection, log, 'carrier poll scheduler error'))
  log.info({ apis: carriers.map((c) => c.api.name), every_seconds: base }, 'carrier polling started')

  return {
    stats,
    async close() {
      connections.queue.off('ready', reschedule)
      const closing = [ticker, ...workers.map((w) => w.worker)].map((w) =>
        isRedisReady(tickConnection) ? w.close() : w.close(true),
      )
      await Promise.all(closing)
      if (isRedisReady(connections.queue)) await tickQueue.close()
      tickConnection.disconnect()
      for (const w of workers) w.connection.disconnect()
    },
  }
}

/**
 * One poll of one tracker: asks its carrier's API (or records it expired
 * after 30 days without news), records what the carrier says through the push
 * API's command, then when to ask again.
 */
function trackerPoller(rt: PollerRuntime, queues: PollQueues, stats: PollingStats, log: Logger) {
  const base = rt.config.SHIPLOG_POLL_INTERVAL
  const count = (api: TrackingApi, outcome: string) =>
    stats.polls.set(`${api}|${outcome}`, (stats.polls.get(`${api}|${outcome}`) ?? 0) + 1)
  const orders = createOrderStates(0)

  /** Appends when to ask again, as the poll's decider says on the tracker's polls folded from its order's stream. */
  const recordPolled = async (stored: StoredDocument<TrackerIndexDoc>, changed: boolean, error?: string) => {
    const { doc, accountId, key } = stored
    const command = {
      type: 'RecordPoll' as const,
      data: { tracker_id: doc.id, changed, base, at: toUnixSeconds(rt.clock.now()), error },
    }
    await decideOnStream<OrderEvent>(
      rt,
      orderDocumentKeyOf(key),
      (history) =>
        decidePoll(
          command,
          history
            .filter((e): e is TrackerPolled => e.type === 'TrackerPolled' && e.data.tracker_id === doc.id)
            .reduce(evolvePollState, undefined as PollState | undefined),
        ),
      () => ({ accountId, correlationId: `poll_${doc.id}`, source: 'reaction', recordedAt: rt.clock.nowMs() }),
    )
  }

  /** Carrier events into the push API's command, as the account's own: true when one was new. */
  const recordEvents = async (accountId: number, fetched: CarrierEventInput[], correlation: string) => {
    // A carrier's answer is held to the push API's own rules: the command appends what they let through unchecked.
    // Oldest first, as they happened: the events' ids (the order every list shows) then follow their time.
    const events = fetched
      .flatMap((e) => {
        const parsed = carrierEventSchema.safeParse(e)
        if (!parsed.success) log.warn({ correlation, error: parsed.error.message }, 'carrier event refused')
        return parsed.success ? [parsed.data] : []
      })
      .sort((a, b) => a.happened_at - b.happened_at)
    const account = await rt.readStore.get<AccountDoc>(collections.accounts.name, accountId, accountId)
    if (!account || account.doc.deleted || events.length === 0) return false
    const request: CommandRequest = { source: 'reaction', account: account.doc, correlationId: correlation }
    const response = await executeCommand(rt, request, planTrackingEvents(rt, orders, request, events))
    return (response.body as { events: TrackingEventResult[] }).events.some((e) => e.status === 'created')
  }

  const poll = async (
    api: CarrierTrackingApi,
    job: { data: QueuedPoll; attemptsMade: number; opts: { attempts?: number } },
  ) => {
    const stored = await rt.readStore.getByKey<TrackerIndexDoc>(TRACKERS, job.data.key)
    const poll = stored?.doc.poll
    if (!stored || !poll || poll.next_poll_at === null || stats.stopped.has(api.name)) return
    const doc = stored.doc
    const now = toUnixSeconds(rt.clock.now())
    if (!job.data.refresh && poll.next_poll_at > now) return // polled meanwhile
    const correlation = `poll_${doc.id}_${now}`
    if (pollsSpentOn(poll, now)) return // asked for again (a refresh) after the day's last
    const trackingNumber = doc.tracking_number
    // Any event of the tracker (a carrier's, pushed or polled) is news: its document's updated_at says when the last was.
    const tracker = await trackerByKey(rt.readStore, job.data.key)
    if (tracker && isStale(tracker.updated_at, now)) {
      const expired: CarrierEventInput = {
        tracking_number: trackingNumber,
        carrier_code: poll.carrier_code,
        event_type_code: 'expired',
        happened_at: now,
        message: 'No news from the carrier for 30 days',
      }
      await recordEvents(stored.accountId, [expired], correlation)
      count(api.name, 'expired')
      return
    }
    const result = await api.track(trackingNumber, poll.carrier_code)
    count(api.name, result.kind)
    switch (result.kind) {
      case 'rate_limited':
        await queues.get(api.name)!.bull.rateLimit(result.retryAfterMs)
        throw Worker.RateLimitError()
      case 'unauthorized':
        stats.stopped.add(api.name)
        log.error(
          { api: api.name },
          `${api.name} tracking API refused the key (${result.message}): its carriers are not polled until the key is fixed and the service restarted`,
        )
        return
      case 'failed':
        // A refresh is someone waiting: its failure is told at once; a scheduled poll tries again first.
        if (!job.data.refresh && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw new Error(result.error)
        log.warn({ api: api.name, tracker: doc.id, error: result.error }, 'carrier poll failed; backing off')
        return recordPolled(stored, false, result.error)
      case 'unknown':
        return recordPolled(stored, false)
      case 'found':
        return recordPolled(stored, await recordEvents(stored.accountId, result.events, correlation))
    }
  }

  return poll
}
