import t from 'tap'
import type { EventStore } from '../../shared/infra/event-store/port.ts'
import { waitForAppends } from '../../shared/infra/event-store/subscribe.ts'

/** A store whose appends are only told: `append()` wakes its listeners as an append of this process would. */
function toldStore() {
  const listeners = new Set<() => void>()
  const store = {
    onAppend(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  } as unknown as EventStore
  return {
    store,
    append: () => {
      for (const listener of listeners) listener()
    },
  }
}

const POLL_MS = 10_000
/** Long beside a timer's lateness on a loaded machine: 'at once' is anything well under it. */
const GATHER_MS = 200

/** How long `next` took, in ms, with `during` run once it is waiting. */
async function timed(next: Promise<void>, during: () => void = () => {}) {
  const started = performance.now()
  during()
  await next
  return performance.now() - started
}

t.test('a follower wakes at an append, and under a stream of them lets more arrive', async (t) => {
  const { store, append } = toldStore()
  // The wakes are timed on a clock of the test's: on a loaded machine, the
  // real time between two awaits can pass the 20 ms that make a stream.
  let clock = 0
  const appends = waitForAppends(store, () => clock)
  t.teardown(appends.close)
  const signal = new AbortController().signal

  const alone = await timed(appends.next(POLL_MS, signal, GATHER_MS), () => setTimeout(append, 5))
  t.ok(alone < GATHER_MS, `an append alone is read at once (${alone.toFixed(0)} ms), not after the poll`)

  clock += 5
  const streamed = await timed(appends.next(POLL_MS, signal, GATHER_MS), append)
  t.ok(
    streamed >= GATHER_MS - 2,
    `the next, 20 ms or less after it, waits ${GATHER_MS} ms more (${streamed.toFixed(0)})`,
  )

  append()
  const told = await timed(appends.next(POLL_MS, signal))
  t.ok(told < GATHER_MS, 'an append made before the wait is seen at once, and nothing is gathered without gatherMs')

  clock += 30
  const apart = await timed(appends.next(POLL_MS, signal, GATHER_MS), append)
  t.ok(apart < GATHER_MS, `an append more than 20 ms after the last is read at once (${apart.toFixed(0)} ms)`)
})

t.test('an append told before a read of the log does not wake the wait after it', async (t) => {
  const { store, append } = toldStore()
  const appends = waitForAppends(store)
  t.teardown(appends.close)
  const signal = new AbortController().signal
  append()
  appends.reading()
  await new Promise((resolve) => setTimeout(resolve, 0))
  const read = await timed(appends.next(40, signal))
  t.ok(read >= 38, `the read took it: the wait lasts until the poll (${read.toFixed(0)} ms)`)
  const later = await timed(appends.next(POLL_MS, signal), () => setTimeout(append, 5))
  t.ok(later < GATHER_MS, `an append told after the read still wakes it (${later.toFixed(0)} ms)`)
})

t.test('a wait ends when its signal aborts, or after pollMs with no append', async (t) => {
  const { store } = toldStore()
  const appends = waitForAppends(store)
  t.teardown(appends.close)
  const controller = new AbortController()
  const aborted = await timed(appends.next(POLL_MS, controller.signal, GATHER_MS), () =>
    setTimeout(() => controller.abort(), 5),
  )
  t.ok(aborted < 1000, `stopped at once (${aborted.toFixed(0)} ms)`)
  // Node times a timer from its event loop's clock, read as the turn began: a
  // turn kept long (a loaded machine) leaves it behind, and a 40 ms timer then
  // ends sooner by the wall clock. So the wait starts as a turn begins.
  await new Promise((resolve) => setTimeout(resolve, 0))
  const polled = await timed(appends.next(40, new AbortController().signal, GATHER_MS))
  t.ok(polled >= 38 && polled < 1000, `looked again after the poll interval (${polled.toFixed(0)} ms)`)
})
