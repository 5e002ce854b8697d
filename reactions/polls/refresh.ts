import { type TrackerIndexDoc, trackersOf } from '../../projectors/orders/tracker-index.ts'
import { trackingApiOf } from '../../shared/domain/carriers/tracking-apis.ts'
import { notFound, ShiplogError } from '../../shared/domain/errors.ts'
import type { TrackerDoc } from '../../shared/domain/orders/document.ts'
import { MAX_POLLS_PER_DAY, pollsSpentOn } from '../../shared/domain/orders/polling.ts'
import { nextUtcDay } from '../../shared/domain/time.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { StoredDocument } from '../../shared/infra/read-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import type { PollQueues } from './poller.ts'

/*
 * Asking a tracker's carrier for news now (POST /v2/trackers/{id}/refresh,
 * the console's Refresh from carrier): a poll queued ahead of its turn, when
 * the carrier's tracking API is configured, the tracker is still followed and
 * its polls of the day are not spent. The API and the console refuse for the
 * same reasons, in the same words.
 */

/** Why a tracker cannot be refreshed now (with when to try again, for a spent day), or its poll queue. */
export function refreshOf(
  entry: StoredDocument<TrackerIndexDoc>,
  tracker: Pick<TrackerDoc, 'carrier'>,
  polls: PollQueues | undefined,
  now: number,
) {
  const carrier = tracker.carrier?.code
  const api = carrier ? trackingApiOf[carrier] : undefined
  const queue = api && polls?.get(api)
  if (!queue)
    return {
      refused: new ShiplogError(
        'SHIPLOG_ERR_CONFLICT',
        carrier
          ? `Carrier ${carrier} is not polled: its tracking API is not configured on this service`
          : 'The tracker has no carrier to poll',
      ),
    }
  const poll = entry.doc.poll
  if (!poll || poll.next_poll_at === null)
    return {
      refused: new ShiplogError('SHIPLOG_ERR_CONFLICT', 'The tracker is final (or not followed yet): it is not polled'),
    }
  if (pollsSpentOn(poll, now))
    return {
      refused: new ShiplogError(
        'SHIPLOG_ERR_RATE_LIMITED',
        `The tracker was polled ${MAX_POLLS_PER_DAY} times today, the most a day; it is polled again tomorrow (UTC)`,
      ),
      retryAfter: nextUtcDay(now) - now,
    }
  return { queue }
}

/**
 * Queues a refresh of the account's tracker `id`; answers why not (and the
 * seconds until a spent day is over) when it cannot be. An unknown tracker
 * and a queue that is down throw, as any read or write would.
 */
export async function queueRefresh(
  rt: Pick<Runtime, 'readStore'>,
  polls: PollQueues | undefined,
  accountId: number,
  id: number,
  now: number,
): Promise<{ tracker: TrackerDoc } | { refused: ShiplogError; retryAfter?: number }> {
  const entry = await rt.readStore.get<TrackerIndexDoc>(collections.trackers.name, accountId, id)
  const [tracker] = entry ? await trackersOf(rt.readStore, [entry]) : []
  if (!entry || !tracker) throw notFound('Tracker not found')
  const refresh = refreshOf(entry, tracker, polls, now)
  if (!refresh.queue) return refresh
  if (!(await refresh.queue.enqueue({ accountId, key: entry.key, refresh: true }).catch(() => false)))
    throw new ShiplogError('SHIPLOG_ERR_UNAVAILABLE', 'The job queue is unavailable: try again shortly')
  return { tracker }
}
