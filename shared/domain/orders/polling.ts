import { nextUtcDay, utcDayOf } from '../time.ts'
import type { OrderEvent } from '../events/index.ts'

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

/** Polls of one parcel in a day (UTC) at most: past them, the next waits for the next day. */
export const MAX_POLLS_PER_DAY = 10

/**
 * What a tracker's polls decide on: the wait before the last one (null:
 * never polled), and the polls of its day; and what the console tells of
 * them: when the carrier last answered, and the last poll's failure.
 */
export interface PollState {
  interval: number | null
  /** The UTC day of the last poll, and the polls that day. */
  polled_on?: string | null
  polls_that_day?: number
  /** When a poll last got the carrier's answer. */
  answered_at?: number | null
  /** The last poll, when it got no answer: what is shown may be stale. */
  failed?: { at: number; error: string } | null
}

/** Polls already made on the day of `at`. */
export const pollsOn = (state: PollState | undefined, at: number) =>
  state?.polled_on === utcDayOf(at) ? (state.polls_that_day ?? 0) : 0

/** Whether the day of `at` has had its polls: none more until the next. */
export const pollsSpentOn = (state: PollState | undefined, at: number) => pollsOn(state, at) >= MAX_POLLS_PER_DAY

export type TrackerPolled = Extract<OrderEvent, { type: 'TrackerPolled' }>

/**
 * A poll's answer: whether the carrier brought news, `at` the poll's time,
 * `base` the configured interval; `error` when it did not answer.
 */
export interface RecordPoll {
  type: 'RecordPoll'
  data: { tracker_id: number; changed: boolean; base: number; at: number; error?: string }
}

export const evolvePollState = (state: PollState | undefined, event: TrackerPolled): PollState => {
  const { at, error } = event.data
  return {
    interval: event.data.interval,
    polled_on: utcDayOf(at),
    polls_that_day: pollsOn(state, at) + 1,
    answered_at: error === undefined ? at : (state?.answered_at ?? null),
    failed: error === undefined ? null : { at, error },
  }
}

/** A poll is always recorded, with when to ask again: soon after news, then less and less often. */
export function decidePoll(command: RecordPoll, state: PollState | undefined): TrackerPolled[] {
  const { tracker_id, changed, base, at, error } = command.data
  const interval = nextPollInterval(state?.interval ?? null, changed, base)
  const next = pollsOn(state, at) + 1 >= MAX_POLLS_PER_DAY ? Math.max(at + interval, nextUtcDay(at)) : at + interval
  const polled = { tracker_id, changed, interval, next_poll_at: next, at }
  return [{ type: 'TrackerPolled', data: error === undefined ? polled : { ...polled, error } }]
}
