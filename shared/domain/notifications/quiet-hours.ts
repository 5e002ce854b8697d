import { localDateTime } from '../delivery/calendar.ts'
import type { QuietHours } from '../events/account-events.ts'

/*
 * No SMS at night: between `from` and `until` in the customer's time zone a
 * text waits until `until`. A window may run over midnight (21:00 to 08:00,
 * the default) or not (12:00 to 14:00); `from` equal to `until` is none.
 */

export const DEFAULT_QUIET_HOURS: QuietHours = { from: '21:00', until: '08:00' }

const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

/**
 * When a text may be sent, if not now: the end of the quiet window the
 * instant falls in, in the zone given; undefined outside it.
 */
export function quietUntil(at: Date, timeZone: string, window: QuietHours | null): Date | undefined {
  if (!window) return undefined
  const [from, until] = [minutesOf(window.from), minutesOf(window.until)]
  if (from === until) return undefined
  const local = localDateTime(timeZone, at)
  const [minutes, seconds] = [minutesOf(local.time), local.seconds]
  const quiet = from < until ? minutes >= from && minutes < until : minutes >= from || minutes < until
  if (!quiet) return undefined
  const wait = (until - minutes + 24 * 60) % (24 * 60)
  // Counted in minutes of the local clock; a change of offset overnight moves the end by that hour at most.
  return new Date(at.getTime() + (wait * 60 - seconds) * 1000 - at.getMilliseconds())
}
