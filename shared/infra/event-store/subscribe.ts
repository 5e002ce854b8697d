import type { EventStore, Position, RecordedEvent } from './port.ts'

export interface SubscribeOptions {
  after?: Position
  types?: readonly string[]
  /** Events handed over per batch. */
  batchSize?: number
  /** How often to look for events appended by other processes. */
  pollMs: number
  signal: AbortSignal
  /**
   * Idle work, called each time the log has nothing more: true when it did
   * some and wants to be called again, after the log is looked at once more.
   */
  whenCaughtUp?: () => Promise<boolean>
}

/**
 * Catch-up then live subscription to the global log, in batches. Live delivery
 * wakes at once on appends made by this process and polls for the others, so a
 * projector in another process (or a CLI appending next to a server) is seen too.
 * Ends quietly when the signal aborts.
 */
export async function* subscribeToAll(store: EventStore, options: SubscribeOptions): AsyncGenerator<RecordedEvent[]> {
  const { signal, pollMs, types, batchSize = 1000 } = options
  let after = options.after
  const appends = waitForAppends(store)
  try {
    while (!signal.aborted) {
      appends.reading()
      const batch = await store.readAll({ after, types, limit: batchSize })
      if (batch.length > 0) {
        after = batch[batch.length - 1]!.position
        yield batch
        continue
      }
      if (await options.whenCaughtUp?.()) continue
      await appends.next(pollMs, signal)
    }
  } finally {
    appends.close()
  }
}

/** Woken by appends this close together, a follower is under a stream of them. */
const STREAM_GAP_MS = 20

/**
 * How a follower of the log waits for more: at once when this process has
 * appended since its last wait, else until it does or `pollMs` pass (the only
 * way to see another process's appends). Under a stream of appends (one a
 * request), it then waits `gatherMs` more, so that one read, and one commit
 * of what it does, take the appends of several requests; an append alone is
 * read at once. `now` is the clock the wakes are timed on.
 */
export function waitForAppends(store: EventStore, now: () => number = () => performance.now()) {
  // A flag and a callback rather than an AbortController: an abort builds a
  // DOMException with its stack, and every append wakes every follower.
  let appended = false
  let wake: (() => void) | undefined
  let wokenAt = Number.NEGATIVE_INFINITY
  const stopListening = store.onAppend(() => {
    appended = true
    wake?.()
  })
  return {
    async next(pollMs: number, signal: AbortSignal, gatherMs = 0) {
      if (!appended)
        await sleep(pollMs, signal, (done) => {
          wake = done
        })
      wake = undefined
      const woken = appended
      appended = false
      if (!woken || gatherMs === 0) return
      const at = now()
      const streaming = at - wokenAt < STREAM_GAP_MS
      wokenAt = at
      if (streaming) await sleep(gatherMs, signal)
    },
    /**
     * The log is about to be read: the appends told so far are in that read,
     * so none of them wakes the next wait. Without it, an append whose rows
     * the last read already took woke the follower to read nothing.
     */
    reading() {
      appended = false
    },
    close: stopListening,
  }
}

/** Resolves after `ms`, or at once when `signal` aborts or the function given to `wakeable` is called. */
export function sleep(ms: number, signal: AbortSignal, wakeable?: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    wakeable?.(done)
  })
}
