import { wholeDaysBetween } from '../shared/domain/time.ts'

/*
 * A parcel's timeline as the order page shows it: its carrier's events,
 * newest first, with a row wherever the parcel went without a scan for longer
 * than the account's stall threshold, and the first few shown before the
 * rest is folded away.
 */

/** Events shown before "Show all". */
export const TIMELINE_SHOWN = 5

export interface TimelineEvent {
  happened_at: number
}

export type TimelineRow<E> = { event: E } | { quiet_days: number }

/** Whole days without a scan between two times, when more than `thresholdDays`. */
const quietDays = (from: number, to: number, thresholdDays: number) => {
  const days = wholeDaysBetween(from, to)
  return days > thresholdDays ? days : undefined
}

/**
 * Events newest first, a `quiet_days` row before an event followed by a
 * longer silence than `thresholdDays` (up to `now` for the newest, unless the
 * parcel's story is over); `shown` holds the first TIMELINE_SHOWN events and
 * the rows between them, `more` the rest.
 */
export function timelineOf<E extends TimelineEvent>(
  events: readonly E[],
  now: number,
  thresholdDays: number,
  ended: boolean,
) {
  const newestFirst = [...events].sort((a, b) => b.happened_at - a.happened_at)
  const rows: TimelineRow<E>[] = []
  let shownRows = 0
  newestFirst.forEach((event, i) => {
    const after = i === 0 ? (ended ? undefined : now) : newestFirst[i - 1]!.happened_at
    const quiet = after === undefined ? undefined : quietDays(event.happened_at, after, thresholdDays)
    if (quiet !== undefined) rows.push({ quiet_days: quiet })
    rows.push({ event })
    if (i === TIMELINE_SHOWN - 1) shownRows = rows.length
  })
  if (newestFirst.length <= TIMELINE_SHOWN) shownRows = rows.length
  return { shown: rows.slice(0, shownRows), more: rows.slice(shownRows), total: newestFirst.length }
}
