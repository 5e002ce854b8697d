import type { Test } from 'tap'
import type { IdSource } from '../../shared/domain/ids.ts'

/**
 * Given / when / then for a decider: the given events are folded with its
 * evolve into the state, the command is decided on it, and the test states the
 * events it expects (or the error). Reads like the rule it checks.
 */
export function specOf<C, S, E>(decider: {
  decide: (command: C, state: S | undefined) => E[]
  evolve: (state: S | undefined, event: E) => S
}) {
  return (given: readonly E[]) => ({
    when(command: C) {
      const decide = () => decider.decide(command, given.reduce<S | undefined>(decider.evolve, undefined))
      return {
        /** The events decided, exactly. */
        thenEvents: (t: Test, expected: readonly E[], message = 'the events decided') =>
          t.same(decide(), expected, message),
        /** The events decided, each matching the pattern at its place and no more events. */
        thenMatch: (t: Test, expected: readonly unknown[], message = 'the events decided') => {
          const events = decide()
          t.equal(events.length, expected.length, `${expected.length} events`)
          t.match(events, expected, message)
        },
        thenThrows: (t: Test, error: { code: string; message?: RegExp | string }) => t.throws(decide, error),
      }
    },
  })
}

/** Ids 1, 2, 3… and UUIDs counted the same way: decisions in tests are repeatable. */
export function countingIds(start = 1): IdSource {
  let n = start
  return {
    next: () => n++,
    uuid: () => `00000000-0000-4000-8000-${String(n++).padStart(12, '0')}`,
  }
}
