/** The only way the service reads the time, so tests can fix it. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export function fixedClock(at: Date | string): Clock & { set(at: Date | string): void } {
  let current = new Date(at)
  return { now: () => new Date(current), set: (next) => (current = new Date(next)) }
}
