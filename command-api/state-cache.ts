import { LRUCache } from 'lru-cache'
import type { AppendRequest, EventStore, EventToFold, Position } from '../shared/infra/event-store/port.ts'

export interface LoadedState<S> {
  state: S | undefined
  /** Revision of the stream's last event, -1 when it does not exist: the expected revision of the next append. */
  revision: number
  /** Position of the stream's last event read, 0n when none. */
  position: Position
}

/**
 * The write side's memory of aggregates it folded recently. Loading a stream
 * reads only the events after the remembered revision, so an order updated
 * every few minutes is not re-read and re-folded from its first event each
 * time. Always correct: whatever another process appended is read and folded
 * on top, and an append that expected a stale revision fails as a conflict.
 * The least recently used stream is forgotten first (`max` 0: none is kept).
 */
export function createStateCache<S>(evolve: (state: S | undefined, event: EventToFold) => S, max: number) {
  // lru-cache, not a Map: a Map dropping its oldest key scans past every key deleted before it.
  const cache = max > 0 ? new LRUCache<string, LoadedState<S>>({ max }) : undefined
  const remember = (stream: string, loaded: LoadedState<S>) => cache?.set(stream, loaded)
  return {
    /** Each stream's state, reading only what was appended since it was last seen; one read for the lot. */
    async loadMany(store: EventStore, streams: readonly string[]): Promise<LoadedState<S>[]> {
      const known = streams.map((stream) => cache?.get(stream) ?? { state: undefined, revision: -1, position: 0n })
      const newer = await store.readStreamsToFold(
        streams.map((stream, i) => ({ stream, fromRevision: known[i]!.revision + 1 })),
      )
      return streams.map((stream, i) => {
        const events = newer[i]!
        if (events.length === 0) return known[i]!
        const last = events[events.length - 1]!
        const loaded = {
          state: events.reduce<S | undefined>(evolve, known[i]!.state),
          revision: last.revision,
          position: last.position,
        }
        remember(stream, loaded)
        return loaded
      })
    },
    /**
     * After a successful append: each appended stream's state is the one its
     * decider reached (a stream that appended nothing is left as it was).
     */
    appended(
      decided: readonly { state: S | undefined; append: AppendRequest }[],
      revisions: ReadonlyMap<string, number>,
      position: Position,
    ) {
      for (const { state, append } of decided) {
        const revision = revisions.get(append.stream)
        if (state !== undefined && revision !== undefined) remember(append.stream, { state, revision, position })
      }
    },
  }
}
