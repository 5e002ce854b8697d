import type { OrderEvent } from './state.ts'

/*
 * When shiplog asks a carrier about a tracker again: soon after a change,
 * less and less often while nothing changes, never once the parcel's story
 * is over.
 */

/** Longest wait between two polls of one tracker. */
export const MAX_POLL_INTERVAL_SECONDS = 24 * 3600
/** A tracker is polled while it is younger than this. */
export const POLL_WINDOW_SECONDS = 60 * 24 * 3600
/** A tracker with no carrier event for this long is recorded `expired`. */
export const EXPIRY_SECONDS = 30 * 24 * 3600

/** Statuses after which a tracker is never polled again. */
export const finalStatuses = new Set(['delivered', 'returned', 'expired'])

/** The wait before the next poll: the base after a change, else the last wait doubled, at most a day. */
export function nextPollInterval(previous: number | null, changed: boolean, base: number): number {
  if (changed || previous === null) return Math.min(base, MAX_POLL_INTERVAL_SECONDS)
  return Math.min(previous * 2, MAX_POLL_INTERVAL_SECONDS)
}

/** Whether a tracker is to be recorded `expired`: no carrier event (nor creation) for 30 days. */
export const isStale = (lastNewsAt: number, now: number) => now - lastNewsAt >= EXPIRY_SECONDS

/** What a tracker's polls decide on: the wait before the last one (null: never polled). */
export interface PollState {
  interval: number | null
}

export type TrackerPolled = Extract<OrderEvent, { type: 'TrackerPolled' }>

/** A poll's answer: whether the carrier brought news, `at` the poll's time, `base` the configured interval. */
export interface RecordPoll {
  type: 'RecordPoll'
  data: { tracker_id: number; changed: boolean; base: number; at: number }
}

export const evolvePollState = (_state: PollState | undefined, event: TrackerPolled): PollState => ({
  interval: event.data.interval,
})

/** A poll is always recorded, with when to ask again: soon after news, then less and less often. */
export function decidePoll(command: RecordPoll, state: PollState | undefined): TrackerPolled[] {
  const { tracker_id, changed, base, at } = command.data
  const interval = nextPollInterval(state?.interval ?? null, changed, base)
  return [{ type: 'TrackerPolled', data: { tracker_id, changed, interval, next_poll_at: at + interval, at } }]
}
