import type { RecordedEvent } from '../shared/event-store/port.ts'
import type { DocumentWrite, FieldValue, ReadStore, StoredDocument } from '../shared/read-store/port.ts'

/** A read model: which events it reads and the documents they change. */
export interface Projection {
  name: string
  collection: string
  /** The documents this batch of events changes, given the store to load the current ones from. */
  apply(events: readonly RecordedEvent[], store: ReadStore): Promise<DocumentWrite[]>
}

/**
 * A projection where each stream of a category builds one document with a pure
 * `evolve(doc, event) → doc`. Idempotent: an event at or below the revision
 * stored on the document has been applied and is skipped.
 */
export function streamProjection<D, E extends RecordedEvent>(spec: {
  name: string
  collection: string
  handles: (event: RecordedEvent) => event is E
  evolve: (doc: D | undefined, event: E) => D
  id: (doc: D) => number
  fields: (doc: D) => Record<string, FieldValue>
}): Projection {
  return {
    name: spec.name,
    collection: spec.collection,
    async apply(events, store) {
      const byStream = new Map<string, E[]>()
      for (const e of events) {
        if (!spec.handles(e)) continue
        const list = byStream.get(e.stream) ?? []
        list.push(e)
        byStream.set(e.stream, list)
      }
      if (byStream.size === 0) return []
      const current = await store.getManyByKey<D>(spec.collection, [...byStream.keys()])
      const writes: DocumentWrite[] = []
      for (const [stream, streamEvents] of byStream) {
        const stored: StoredDocument<D> | undefined = current.get(stream)
        let doc = stored?.doc
        let revision = stored?.revision ?? -1
        let accountId = stored?.accountId
        for (const e of streamEvents) {
          if (e.revision <= revision) continue
          doc = spec.evolve(doc, e)
          revision = e.revision
          accountId = e.metadata.accountId
        }
        if (doc === undefined || accountId === undefined || revision === (stored?.revision ?? -1)) continue
        writes.push({ collection: spec.collection, key: stream, accountId, id: spec.id(doc), revision, doc, fields: spec.fields(doc) })
      }
      return writes
    },
  }
}
