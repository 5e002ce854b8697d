/** Jobs a slow endpoint may hold at once in a sender process: its batches (one sending, the rest waiting their turn) and single messages. */
export const HELD_PER_ENDPOINT = 16

/** An endpoint whose batch takes this long (ms) is slow: 100 messages, 16 at a time, answered in about 300 ms each. */
const SLOW_BATCH_MS = 2_000
/** An endpoint whose single messages (retries, a sweep's) take this long (ms) each is slow too. */
const SLOW_ONE_MS = 1_000
/** A batch put back and not taken again for this long is forgotten: Redis lost it, and a sweep sends its messages. */
const FORGOTTEN_MS = 60_000
/** Bounds of the wait of a batch put back. */
const PUT_BACK_MS = { least: 100, most: 30_000 }

/**
 * One endpoint's jobs in a sender process: its batches, and its single
 * messages (retries, a sweep's). A fast endpoint's are all taken as they
 * come. A slow one's are taken while it holds fewer than HELD_PER_ENDPOINT,
 * so that its backlog never fills the worker's slots; the next are put back
 * for about as long as those held will take. A batch is never taken while
 * an earlier one (by log position) waits to be taken again, so batches keep
 * log order; a single message keeps no order.
 */
export class EndpointTurns {
  #held = 0
  /** The batches put back, by first position, and when. */
  readonly #putBack = new Map<bigint, number>()
  /** How long a batch of this endpoint takes, smoothed (ms). */
  #pace = 0
  /** When the batch sending now began. */
  #sendingSince: number | undefined
  /** How long a single message's attempt takes, smoothed (ms). */
  #onePace = 0

  get idle() {
    return this.#held === 0 && this.#putBack.size === 0
  }

  /** Whether the batch starting at `position` may be taken now; when not, it is counted as put back. */
  take(position: bigint, now: number): boolean {
    for (const [at, since] of this.#putBack) if (now - since > FORGOTTEN_MS) this.#putBack.delete(at)
    let earlier = false
    for (const at of this.#putBack.keys()) if (at < position) earlier = true
    if (earlier || this.#full(now)) {
      this.#putBack.set(position, now)
      return false
    }
    this.#putBack.delete(position)
    this.#held++
    return true
  }

  /** A batch taken begins sending (one at a time). */
  sending(now: number) {
    this.#sendingSince = now
  }

  /** A batch taken is done. */
  done(now: number) {
    this.#held--
    if (this.#sendingSince === undefined) return
    const ms = now - this.#sendingSince
    this.#pace = smoothed(this.#pace, ms)
    this.#sendingSince = undefined
  }

  /**
   * Whether a single message's attempt may be taken now. Retries come due
   * together, so until one has shown the endpoint fast they are held to
   * its share, as a slow endpoint's are.
   */
  takeOne(now: number): boolean {
    if (this.#full(now) || (this.#held >= HELD_PER_ENDPOINT && this.#onePace === 0)) return false
    this.#held++
    return true
  }

  /** A single message's attempt is done, after `ms`. */
  doneOne(ms: number) {
    this.#held--
    this.#onePace = smoothed(this.#onePace, ms)
  }

  /** How long a batch put back waits before it is taken again: about as long as the batches held take. */
  putBackFor(now: number): number {
    return bounded(this.#batchMs(now) * Math.max(1, this.#held))
  }

  /** How long a single message put back waits: about as long as one attempt takes. */
  putBackOneFor(): number {
    return bounded(this.#onePace)
  }

  #full(now: number) {
    return this.#held >= HELD_PER_ENDPOINT && (this.#batchMs(now) >= SLOW_BATCH_MS || this.#onePace >= SLOW_ONE_MS)
  }

  /** How long a batch takes: as batches have taken, or as the one sending has taken so far, if longer. */
  #batchMs(now: number) {
    return Math.max(this.#pace, this.#sendingSince === undefined ? 0 : now - this.#sendingSince)
  }
}

/** A duration's moving average, the newest weighing a fifth; 0 before the first. */
const smoothed = (average: number, ms: number) => (average === 0 ? ms : 0.8 * average + 0.2 * ms)

const bounded = (ms: number) => Math.round(Math.min(PUT_BACK_MS.most, Math.max(PUT_BACK_MS.least, ms)))
