import type { Position } from '../event-store/port.ts'
import type { ReadStore } from './port.ts'

const POLL_MS = 5

/**
 * Waits until every named projection has passed `position`, for at most
 * `timeoutMs`. True when they have: the read then sees the caller's own writes.
 */
export async function waitForProjections(
  store: ReadStore,
  names: readonly string[],
  position: Position,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const checkpoints = await Promise.all(names.map((n) => store.checkpoint(n)))
    if (checkpoints.every((c) => (c ?? 0n) >= position)) return true
    if (Date.now() >= deadline) return false
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
}
