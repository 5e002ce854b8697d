import type { Position } from '../event-store/port.ts'
import type { ProjectionProgress } from './projection-progress.ts'
import type { ReadStore } from './port.ts'

const POLL_MS = 5
/** With a projector in this process, the store is asked only this often, in case its word is late. */
const FALLBACK_POLL_MS = 50

/**
 * Waits until every named projection has passed `position`, for at most
 * `timeoutMs`. True when they have: the read then sees the caller's own
 * writes. `progress`, when this process runs the projector, wakes the wait at
 * each commit; otherwise (a projector in another process) the store's
 * checkpoints are polled.
 */
export async function waitForProjections(
  store: Pick<ReadStore, 'checkpoint'>,
  names: readonly string[],
  position: Position,
  timeoutMs: number,
  progress?: ProjectionProgress,
): Promise<boolean> {
  // performance.now(), not Date.now(): whole milliseconds ended a wait up to one short of timeoutMs.
  const deadline = performance.now() + timeoutMs
  // One projection at a time, the one behind at the last ask first: while any
  // is behind, an ask reads one checkpoint, not every projection's.
  let behind = 0
  const passed = async () => {
    for (let i = 0; i < names.length; i++) {
      const at = (behind + i) % names.length
      if (((await store.checkpoint(names[at]!)) ?? 0n) < position) {
        behind = at
        return false
      }
    }
    return true
  }
  // The projector's word first: the store is asked only when it has told nothing yet or is late.
  let ask = !progress || progress.position === 0n
  for (;;) {
    if (progress && progress.position >= position) return true
    if (ask && (await passed())) return true
    const left = deadline - performance.now()
    if (left <= 0) return false
    if (!progress) {
      await new Promise((r) => setTimeout(r, POLL_MS))
      continue
    }
    const until = performance.now() + Math.min(FALLBACK_POLL_MS, left)
    while (progress.position < position && performance.now() < until) await progress.next(until - performance.now())
    ask = true
  }
}
