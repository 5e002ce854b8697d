/*
 * How a webhook endpoint is doing, from its delivery log read newest first:
 * the share of the last 24 hours' messages it took, and since when it has
 * been failing (the oldest message of its current run of failures).
 */

const DAY = 86_400

export interface LoggedMessage {
  created_at: number
  status: 'pending' | 'succeeded' | 'failed'
  /** Failed attempts on the current retry schedule. */
  retries: number
}

/** A message the receiver did not take: given up on, or being retried. */
export const failing = (m: LoggedMessage) => m.status === 'failed' || (m.status === 'pending' && m.retries > 0)
/** A message tried at least once: taken, given up on, or being retried (one not tried yet tells nothing). */
const tried = (m: LoggedMessage) => m.status === 'succeeded' || failing(m)

export function endpointHealth(newestFirst: readonly LoggedMessage[], now: number) {
  const lastDay = newestFirst.filter((m) => now - m.created_at < DAY && tried(m))
  const taken = lastDay.filter((m) => m.status === 'succeeded').length
  let failingSince: number | null = null
  for (const m of newestFirst) {
    if (!tried(m)) continue
    if (!failing(m)) break
    failingSince = m.created_at
  }
  return { lastDay: lastDay.length > 0 ? { taken, tried: lastDay.length } : null, failingSince }
}
