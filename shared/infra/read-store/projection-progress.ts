/**
 * How far this process's own projector has committed, told by the projector
 * thread after each commit: a write waiting to be visible wakes when it is,
 * instead of asking the read store every few milliseconds. Every projection
 * the thread runs has reached the position it tells.
 */
export class ProjectionProgress {
  #position = 0n
  readonly #waiters = new Set<() => void>()

  get position() {
    return this.#position
  }

  advance(position: bigint) {
    if (position <= this.#position) return
    this.#position = position
    for (const wake of this.#waiters) wake()
    this.#waiters.clear()
  }

  /** Resolves at the next commit, or after `ms`, whichever comes first. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        this.#waiters.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      this.#waiters.add(wake)
    })
  }
}
