/**
 * The log's newest rows as another thread of this process appended them,
 * handed from the append to the projector's thread, so a projector that is
 * keeping up reads them here instead of from the file: the
 * log is read only to catch up (after a restart, a reader fallen behind, or
 * rows written by another process). Only rows that follow one another
 * without a gap are kept, so a page read here is exactly the log's.
 */
export class RecentAppends<R> {
  readonly #rows: R[] = []
  /** Each kept row's first and last positions, worked out once. */
  readonly #spans: { first: bigint; last: bigint }[] = []
  #events = 0

  constructor(
    /** The positions of a row's first and last events. */
    private readonly span: (row: R) => { first: bigint; last: bigint },
    /** Events kept at most: the oldest rows go first. */
    private readonly maxEvents: number,
  ) {}

  /** Rows just committed, in position order; a row that does not follow the last kept starts again from it. */
  add(rows: readonly R[]) {
    for (const row of rows) {
      const span = this.span(row)
      const newest = this.#spans[this.#spans.length - 1]
      if (newest !== undefined && span.first !== newest.last + 1n) {
        this.#rows.length = 0
        this.#spans.length = 0
        this.#events = 0
      }
      this.#rows.push(row)
      this.#spans.push(span)
      this.#events += Number(span.last - span.first) + 1
    }
    let oldest = 0
    for (let events = this.#events; events > this.maxEvents && oldest < this.#rows.length - 1; oldest++) {
      const { first, last } = this.#spans[oldest]!
      events -= Number(last - first) + 1
    }
    this.#drop(oldest)
  }

  /**
   * The rows holding the events after `after`, oldest first, when every one
   * of them from the next position on is here; undefined when the log must
   * be read (it may also hold rows after the last kept, from another process:
   * a reader that has read these reads on from the log). The rows before
   * them are dropped: kept rows are read once, and live no longer than it
   * takes the reader to catch up.
   */
  after(after: bigint): readonly R[] | undefined {
    const spans = this.#spans
    if (spans.length === 0) return undefined
    if (after < spans[0]!.first - 1n || after >= spans[spans.length - 1]!.last) return undefined
    let low = 0
    let high = spans.length - 1
    // The first row whose last event is after `after`.
    while (low < high) {
      const middle = (low + high) >>> 1
      if (spans[middle]!.last > after) high = middle
      else low = middle + 1
    }
    // What was read up to is not read again (the projector thread has one reader): it goes.
    this.#drop(low)
    return this.#rows.slice()
  }

  /** Drops the oldest `count` rows. */
  #drop(count: number) {
    for (const { first, last } of this.#spans.splice(0, count)) this.#events -= Number(last - first) + 1
    this.#rows.splice(0, count)
  }
}
