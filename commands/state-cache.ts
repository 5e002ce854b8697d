import { LRUCache } from 'lru-cache'
import type { AppendRequest, EventStore, EventToFold, Position } from '../shared/infra/event-store/port.ts'

export interface LoadedState<S> {
  state: S | undefined
  /** Revision of the stream's last event, -1 when it does not exist: the expected revision of the next append. */
  revision: number
  /** Position of the stream's last event read, 0n when none. */
  position: Position
  /** Events this load read back from the store and folded (beyond what memory or a snapshot held). */
  readBack: number
}

/** How an aggregate's snapshots are kept: their version, and how long a fold earns one. */
export interface SnapshotPolicy {
  /** Bumped whenever the state's shape or its fold changes: snapshots of another version are ignored. */
  version: string
  /** Events read back by a load, at or above which the append after it carries a snapshot. */
  readBack: number
}

/** A bound on the memory of the states remembered, by an estimate of each one's. */
export interface CacheBytes<S> {
  max: number
  /** Roughly the heap a state takes, in bytes: cheap, as it is asked at every change. */
  of: (state: S) => number
}

const nothing = { state: undefined, revision: -1, position: 0n, readBack: 0 }

/**
 * The write side's memory of aggregates it folded recently. Loading a stream
 * reads only the events after the remembered revision, so an order updated
 * every few minutes is not re-read and re-folded from its first event each
 * time. Always correct: whatever another process appended is read and folded
 * on top, and an append that expected a stale revision fails as a conflict.
 * The least recently used stream is forgotten first, when `max` streams or
 * `bytes.max` bytes of their states are kept (`max` 0: none is kept); a
 * state larger than the whole budget is not kept.
 * A stream is remembered from its second command on, not at its creation:
 * a bulk import creates thousands of orders a second, most not touched again
 * for hours, and remembering each would push out the orders being worked on
 * (and keep every new order alive long enough to burden the heap's old
 * generation). Its next load reads back the few events it has.
 *
 * With a snapshot policy, a stream not in memory is folded from its latest
 * snapshot where the store keeps them, and when a load had to read many
 * events back, the append after it carries a new snapshot: a parcel's order
 * collects events all its life, and reading them all back for each scan
 * would cost more with every scan. A stream that memory keeps, or that is
 * short, is spared writing one.
 */
export function createStateCache<S>(
  evolve: (state: S | undefined, event: EventToFold) => S,
  max: number,
  snapshots?: SnapshotPolicy,
  bytes?: CacheBytes<S>,
) {
  // lru-cache, not a Map: a Map dropping its oldest key scans past every key deleted before it.
  const cache =
    max > 0
      ? new LRUCache<string, LoadedState<S>>({
          max,
          ...(bytes && {
            maxSize: bytes.max,
            sizeCalculation: (loaded) => (loaded.state === undefined ? 1 : Math.max(1, bytes.of(loaded.state))),
          }),
        })
      : undefined
  const remember = (stream: string, loaded: LoadedState<S>) => cache?.set(stream, loaded)

  /** Each stream's state as memory, else its latest snapshot, knows it. */
  const known = async (store: EventStore, streams: readonly string[]): Promise<LoadedState<S>[]> => {
    const remembered = streams.map((stream) => cache?.get(stream))
    const missing = streams.filter((_, i) => remembered[i] === undefined)
    if (!snapshots || !store.readSnapshots || missing.length === 0) return remembered.map((r) => r ?? nothing)
    const found = await store.readSnapshots(missing, snapshots.version)
    let m = 0
    return remembered.map((r) => {
      if (r) return r
      const snapshot = found[m++]
      return snapshot
        ? { state: snapshot.state as S, revision: snapshot.revision, position: snapshot.position, readBack: 0 }
        : nothing
    })
  }

  return {
    /** Each stream's state, reading only what was appended since it was last seen; one read for the lot. */
    async loadMany(store: EventStore, streams: readonly string[]): Promise<LoadedState<S>[]> {
      const from = await known(store, streams)
      const newer = await store.readStreamsToFold(
        streams.map((stream, i) => ({ stream, fromRevision: from[i]!.revision + 1 })),
      )
      return streams.map((stream, i) => {
        const events = newer[i]!
        const start = from[i]!
        if (events.length === 0) return start
        const last = events[events.length - 1]!
        const loaded = {
          state: events.reduce<S | undefined>(evolve, start.state),
          revision: last.revision,
          position: last.position,
          readBack: events.length,
        }
        remember(stream, loaded)
        return loaded
      })
    },
    /** The append of a decided state, carrying a snapshot of it when the policy calls for one. */
    appendOf(current: LoadedState<S>, state: S | undefined, append: AppendRequest): AppendRequest {
      if (!snapshots || state === undefined || append.events.length === 0) return append
      if (current.readBack < snapshots.readBack) return append
      return Object.assign({}, append, { snapshot: { version: snapshots.version, state } })
    },
    /**
     * After a successful append: each appended stream's state is the one its
     * decider reached (a stream that appended nothing is left as it was, and
     * one this append created is not remembered yet).
     */
    appended(
      decided: readonly { state: S | undefined; append: AppendRequest }[],
      revisions: ReadonlyMap<string, number>,
      position: Position,
    ) {
      for (const { state, append } of decided) {
        const revision = revisions.get(append.stream)
        if (state !== undefined && revision !== undefined && append.expected !== 'no_stream')
          remember(append.stream, { state, revision, position, readBack: 0 })
      }
    },
  }
}
