/** The only way the service reads the time, so tests can fix it. */
export interface Clock {
  now(): Date
  /** The same instant in milliseconds, without a Date: ids read it thousands of times a batch. */
  nowMs(): number
}

export const systemClock: Clock = { now: () => new Date(), nowMs: Date.now }

export function fixedClock(at: Date | string): Clock & { set(at: Date | string): void } {
  let current = new Date(at)
  return { now: () => new Date(current), nowMs: () => current.getTime(), set: (next) => (current = new Date(next)) }
}
