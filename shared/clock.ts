/** The only way the service reads the time, so tests can fix it. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export function fixedClock(at: Date | string): Clock & { set(at: Date | string): void } {
  let current = new Date(at)
  return { now: () => new Date(current), set: (next) => (current = new Date(next)) }
}

export const toUnixSeconds = (d: Date | number): number =>
  Math.floor((typeof d === 'number' ? d : d.getTime()) / 1000)

/**
 * Reads a datetime input: Unix seconds (integer or numeric string) or an ISO
 * 8601 string. Undefined when it is neither.
 */
export function parseDateTime(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.floor(value) : undefined
  const trimmed = value.trim()
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return Math.floor(Number(trimmed))
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return undefined
  const ms = Date.parse(trimmed)
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000)
}
