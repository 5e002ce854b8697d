import type { RecordedEvent } from '../shared/infra/event-store/port.ts'
import type {
  DocumentAppend,
  DocumentWrite,
  FieldValue,
  EventToAppend,
  ReadStore,
  StoredDocument,
} from '../shared/infra/read-store/port.ts'

/** A read model: which events it reads and the documents they change. */
export interface Projection {
  name: string
  collection: string
  /** The documents this batch of events changes, given the store to load the current ones from. */
  apply(events: readonly RecordedEvent[], store: ReadStore): Promise<(DocumentWrite | DocumentAppend)[]>
  /** The same projection writing elsewhere under another checkpoint (a rebuild's shadow). */
  retarget(name: string, collection: string): Projection
  /**
   * The same projection keeping only the documents of one of `count` parts,
   * by a hash of their source key: a rebuild's threads each take a part.
   */
  part(index: number, count: number): Projection
  /**
   * Renders up to `limit` documents' views left out of their writes (the
   * collection's `viewsWhenIdle`), newest first; returns how many documents
   * it looked at (0: none left). The runner calls it when idle.
   */
  fillViews?(store: ReadStore, limit: number): Promise<number>
}

/** The event as a document's pending event: its data's text where the event store keeps it, so it is not parsed for this. */
const pendingEventOf = (e: RecordedEvent): EventToAppend =>
  e.dataJson === undefined
    ? { type: e.type, revision: e.revision, data: e.data }
    : { type: e.type, revision: e.revision, dataJson: e.dataJson }

/** FNV-1a: a cheap, stable spread of source keys over a rebuild's parts. */
function hashOf(key: string) {
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

const changedFields = (before: Record<string, FieldValue>, after: Record<string, FieldValue>) =>
  Object.keys(after).filter((field) => before[field] !== after[field])

/** What a document read model is made of: which events it takes, how it folds them, what it indexes. */
export interface DocumentProjectionSpec<D, E extends RecordedEvent> {
  name: string
  collection: string
  handles: (event: RecordedEvent) => event is E
  keyOf?: (event: E) => string
  /**
   * Whether an event starts its document from nothing (by default, for a
   * document per stream, the stream's first event). A document whose first
   * event in a batch starts it is not looked up: there is nothing before it to
   * fold, and a replay that meets it stored already writes nothing, its
   * revision being no newer. A bulk load creates most of what it writes.
   */
  startsDocument?: (event: E) => boolean
  /** Undefined: no document (an event about something this read model does not keep). */
  evolve: (doc: D | undefined, event: E) => D | undefined
  id: (doc: D) => number
  fields: (doc: D) => Record<string, FieldValue>
  /** The collection's pre-serialised views of a document. */
  views?: (doc: D) => Record<string, string>
  /** Views are left out of the writes and rendered by `fillViews` (the collection's `viewsWhenIdle`). */
  viewsWhenIdle?: boolean
  /**
   * Where the store keeps pending events (`pendingOf`; the collection's
   * `pending` folds them as a document is read): the events appended to a
   * stored document without reading it, those that change none of its
   * indexed `fields`; a document the batch starts is stored as its events.
   * A document with `max` events pending is read, folded and written whole.
   */
  appends?: { when: (event: E) => boolean; max: number }
  /** Set by `part`: the only documents this copy keeps. */
  part?: { index: number; count: number }
}

/**
 * A projection where documents are built with a pure `evolve(doc, event) →
 * doc`: by default one document per stream; `keyOf` names another source key
 * where one stream feeds several documents. Idempotent: an event at or below
 * the stream revision stored on its document has been applied and is skipped.
 */
export function documentProjection<D, E extends RecordedEvent>(spec: DocumentProjectionSpec<D, E>): Projection {
  const { views } = spec
  return {
    name: spec.name,
    collection: spec.collection,
    retarget: (name, collection) => documentProjection({ ...spec, name, collection }),
    part: (index, count) => documentProjection({ ...spec, part: { index, count } }),
    async apply(events, store) {
      const byKey = eventsByDocument(spec, events)
      if (byKey.size === 0) return []
      const appends: (DocumentWrite | DocumentAppend)[] = await appendsOf(spec, byKey, store)
      return [...appends, ...(await wholeWritesOf(spec, byKey, store))]
    },
    fillViews:
      spec.viewsWhenIdle && views
        ? async (store, limit) => {
            const missing = await store.missingViews<D>(spec.collection, limit)
            await store.fillViews(
              spec.collection,
              missing.map((d) => ({
                key: d.key,
                revision: d.revision,
                views: views(d.doc),
                ...(d.pending ? { folded: d.doc } : {}),
              })),
            )
            return missing.length
          }
        : undefined,
  }
}

/** Whether an event starts its document from nothing: by default, for a document per stream, the stream's first. */
const startsDocumentOf =
  <D, E extends RecordedEvent>(spec: DocumentProjectionSpec<D, E>) =>
  (event: E) =>
    spec.startsDocument ? spec.startsDocument(event) : !spec.keyOf && event.revision === 0

/** The batch's events this projection handles, by the document they go to (in its part, when it is one). */
function eventsByDocument<D, E extends RecordedEvent>(
  spec: DocumentProjectionSpec<D, E>,
  events: readonly RecordedEvent[],
): Map<string, E[]> {
  const byKey = new Map<string, E[]>()
  for (const e of events) {
    if (!spec.handles(e)) continue
    const key = spec.keyOf ? spec.keyOf(e) : e.stream
    if (spec.part && hashOf(key) % spec.part.count !== spec.part.index) continue
    const list = byKey.get(key) ?? []
    list.push(e)
    byKey.set(key, list)
  }
  return byKey
}

/**
 * The appends of the documents whose events in the batch may all be
 * appended, taken out of `byKey`: the rest are read and written whole. A
 * document the batch starts is made of its events alone (its first, then
 * events that may be appended), its indexed fields those of the first.
 */
async function appendsOf<D, E extends RecordedEvent>(
  spec: DocumentProjectionSpec<D, E>,
  byKey: Map<string, E[]>,
  store: ReadStore,
): Promise<DocumentAppend[]> {
  const { appends } = spec
  const startsDocument = startsDocumentOf(spec)
  if (!appends || !store.pendingOf) return []
  const writes: DocumentAppend[] = []
  const existing: string[] = []
  for (const [key, keyEvents] of byKey) {
    const first = keyEvents[0]!
    if (!startsDocument(first)) {
      if (keyEvents.every(appends.when)) existing.push(key)
      continue
    }
    if (keyEvents.length > appends.max || !keyEvents.every((e) => e === first || appends.when(e))) continue
    const made = spec.evolve(undefined, first)
    if (made === undefined) continue
    byKey.delete(key)
    const last = keyEvents[keyEvents.length - 1]!
    writes.push({
      collection: spec.collection,
      key,
      revision: last.revision,
      events: keyEvents.map(pendingEventOf),
      creates: { accountId: last.metadata.accountId, id: spec.id(made), fields: spec.fields(made) },
    })
  }
  if (existing.length === 0) return writes
  const stored = await store.pendingOf(spec.collection, existing)
  for (const key of existing) {
    const current = stored.get(key)
    if (!current) continue
    // A replay leaves out what the document holds already, as a fold would.
    const fresh = byKey.get(key)!.filter((e) => e.revision > current.revision)
    if (current.pending + fresh.length > appends.max) continue
    byKey.delete(key)
    if (fresh.length === 0) continue
    writes.push({
      collection: spec.collection,
      key,
      after: current.revision,
      revision: fresh[fresh.length - 1]!.revision,
      events: fresh.map(pendingEventOf),
    })
  }
  return writes
}

/**
 * The documents of the rest of the batch, each read (unless the batch starts
 * it), folded with its events and written whole.
 */
async function wholeWritesOf<D, E extends RecordedEvent>(
  spec: DocumentProjectionSpec<D, E>,
  byKey: Map<string, E[]>,
  store: ReadStore,
): Promise<DocumentWrite[]> {
  const startsDocument = startsDocumentOf(spec)
  const viewsOnWrite = spec.viewsWhenIdle ? undefined : spec.views
  const writes: DocumentWrite[] = []
  const existing: string[] = []
  for (const [key, keyEvents] of byKey) if (!startsDocument(keyEvents[0]!)) existing.push(key)
  const current =
    existing.length > 0 ? await store.getManyByKey<D>(spec.collection, existing) : new Map<string, StoredDocument<D>>()
  for (const [key, keyEvents] of byKey) {
    const stored: StoredDocument<D> | undefined = current.get(key)
    let doc = stored?.doc
    let revision = stored?.revision ?? -1
    let accountId = stored?.accountId
    for (const e of keyEvents) {
      if (e.revision <= revision) continue
      doc = spec.evolve(doc, e)
      revision = e.revision
      accountId = e.metadata.accountId
    }
    if (doc === undefined || accountId === undefined || revision === (stored?.revision ?? -1)) continue
    const id = spec.id(doc)
    const fields = spec.fields(doc)
    writes.push({
      collection: spec.collection,
      key,
      accountId,
      id,
      revision,
      doc,
      fields,
      views: viewsOnWrite?.(doc),
      replaces:
        stored && stored.id === id && stored.accountId === accountId
          ? { revision: stored.revision, changedFields: changedFields(spec.fields(stored.doc), fields) }
          : undefined,
      absent: stored === undefined,
    })
  }
  return writes
}
