import type { Position } from '../event-store/port.ts'

/**
 * The ReadStore port: documents of the read models, each built from one event
 * stream, with the indexed fields the query API filters on, and one
 * checkpoint per projection. Every query is scoped by account.
 */
export type FieldType = 'text' | 'integer'

export interface CollectionSpec {
  name: string
  /** Indexed fields; each gets an index whose prefix is the account id and whose suffix is the id. */
  fields: Record<string, FieldType>
  /** Indexed fields also looked up across accounts (`lookupAll`), with an index of their own. */
  lookupFields?: readonly string[]
  /**
   * Indexed fields read across accounts by `lookupDue` alone: each gets an
   * index of its own holding only the documents where it is set, and none
   * per account.
   */
  dueFields?: readonly string[]
  /**
   * A field's value that a sweep looks up across accounts (`lookupAll`), such
   * as the messages still `pending`: an index of its own holds only the
   * documents at that value, so a sweep reads the few still waiting and never
   * the rest, and a document costs that index a write only on its way in and out.
   */
  sweptValues?: Readonly<Record<string, string>>
  /** Pre-serialised renderings kept beside each document, served without parsing it. */
  views?: readonly string[]
  /**
   * Views left out of the projector's writes (stored as missing, the
   * document's older view dropped) and filled in later by `fillViews`, when
   * the projector is idle; the collection keeps an index of the documents
   * missing them.
   */
  viewsWhenIdle?: boolean
  /**
   * Documents of several kilobytes, to be stored compressed by a store that
   * does not compress on its own (the embedded SQLite store).
   */
  compressed?: boolean
  /**
   * How a document's pending events are folded into it when it is read: a
   * store with `pendingOf` keeps events a projection appends beside the
   * document, unread, until the document is next written whole.
   */
  pending?: { fold: (doc: unknown, events: readonly PendingEvent[]) => unknown }
}

/** An event appended to a stored document without reading it, as the document's fold reads it. */
export interface PendingEvent {
  type: string
  revision: number
  data: unknown
}

/** An event to append: its data, or its data's JSON text as the event store holds it (copied, not serialised again). */
export type EventToAppend = Omit<PendingEvent, 'data'> & ({ data: unknown } | { dataJson: string })

/**
 * Events for a document, left for its readers to fold, `revision` the last's:
 * appended to the stored document if it is still at revision `after`; or,
 * with `creates`, a new document made of its events alone (its account, id
 * and indexed fields given), which replaces a stored one only at a newer
 * revision, as a whole write does.
 */
export type DocumentAppend = {
  collection: string
  key: string
  revision: number
  events: readonly EventToAppend[]
} & (
  | { after: number; creates?: undefined }
  | { after?: undefined; creates: { accountId: number; id: number; fields: Record<string, FieldValue> } }
)

export const isAppend = (write: DocumentWrite | DocumentAppend): write is DocumentAppend => 'events' in write

/** A commit's writes for a store that keeps no pending events: a projection appends only where `pendingOf` exists. */
export function wholeDocuments(writes: readonly (DocumentWrite | DocumentAppend)[]): readonly DocumentWrite[] {
  for (const w of writes) if (isAppend(w)) throw new Error(`${w.collection}: this store keeps no pending events`)
  return writes as readonly DocumentWrite[]
}

/**
 * Refuses views the collection does not have: a view's name carries its
 * version, and a writer still on an old name would leave every document
 * without its view (pages then rendered from documents), unnoticed.
 */
export function checkViewNames(spec: CollectionSpec, views: Readonly<Record<string, string>> | undefined) {
  for (const name in views) if (!spec.views?.includes(name)) throw new Error(`${name} is not a view of ${spec.name}`)
}

export type FieldValue = string | number | null

export interface StoredDocument<D = unknown> {
  accountId: number
  id: number
  /**
   * Unique source key: the stream the document is built from, or the stream
   * plus a sub-id where one stream feeds several documents (its trackers).
   */
  key: string
  /** Revision of the last event of the source stream applied; an event at or below it is skipped. */
  revision: number
  doc: D
  /** Pending events folded into `doc` as it was read (a store that keeps them); absent when none. */
  pending?: number
}

export interface DocumentWrite<D = unknown> extends StoredDocument<D> {
  collection: string
  fields: Record<string, FieldValue>
  /** The collection's views of this document, as JSON text; missing (to be filled) where left out. */
  views?: Record<string, string>
  /**
   * Set when the document replaces the stored one it was built from (same id
   * and account): that one's revision, and the indexed fields whose values
   * changed. A store may then update the row in place and leave the other
   * fields' index entries untouched, provided the row is still at that
   * revision; otherwise it writes the whole document.
   */
  replaces?: { revision: number; changedFields: readonly string[] }
  /**
   * Set when the projection found no stored document under the key, or
   * looked for none (the batch starts it). A store may then insert the row
   * without looking for one first, provided a row met there after all (a
   * replay) leaves the commit as the checked write would.
   */
  absent?: boolean
}

/** A document's views, rendered from the document at `revision`. */
export interface DocumentViews {
  key: string
  revision: number
  views: Record<string, string>
  /** The document as read with its pending events folded in: stored with the views, the events dropped. */
  folded?: unknown
}

export type Comparison = 'eq' | 'gt' | 'gte' | 'lt' | 'lte'

export type Condition =
  | { field: string; op: Comparison; value: string | number }
  /** The field holds one of the values. */
  | { field: string; op: 'in'; values: readonly (string | number)[] }

/** Each comparison in memory, as the stores' queries compare. */
const compare: Record<Comparison, (value: string | number, bound: string | number) => boolean> = {
  eq: (value, bound) => value === bound,
  gt: (value, bound) => value > bound,
  gte: (value, bound) => value >= bound,
  lt: (value, bound) => value < bound,
  lte: (value, bound) => value <= bound,
}

/** Whether fields in memory meet the conditions, as a store's query would select their document. */
export function meetsConditions(fields: object, where: readonly Condition[]) {
  return where.every((c) => {
    const value = (fields as Record<string, unknown>)[c.field] as string | number | null | undefined
    if (value === null || value === undefined) return false
    return c.op === 'in' ? c.values.includes(value) : compare[c.op](value, c.value)
  })
}

export interface FindQuery {
  accountId: number
  where?: readonly Condition[]
  /** Only ids above this one: the page going forward in time. */
  startingAfter?: number
  /** Only ids below this one: the page going back in time. */
  endingBefore?: number
  limit: number
}

export interface Page<D = unknown> {
  /** Always in descending id order. */
  docs: StoredDocument<D>[]
  hasMore: boolean
}

/**
 * A view's JSON in UTF-8, copied into the caller's buffer: a page of views
 * becomes one answer without a buffer per view.
 */
export interface ViewBytes {
  readonly byteLength: number
  /** Writes the bytes into `target` from `offset`. */
  copyTo(target: Uint8Array, offset: number): void
}

export const viewBytesOf = (bytes: Uint8Array): ViewBytes => ({
  byteLength: bytes.length,
  copyTo: (target, offset) => target.set(bytes, offset),
})

export interface ReadStore {
  readonly kind: 'sqlite' | 'mongodb' | 'postgres'
  /**
   * Commits that write different collections run at once, each on a
   * connection of its own (PostgreSQL): the projector then splits its read
   * models into lanes whose commits overlap.
   */
  readonly concurrentCommits?: true
  get<D>(collection: string, accountId: number, id: number): Promise<StoredDocument<D> | undefined>
  getByKey<D>(collection: string, key: string): Promise<StoredDocument<D> | undefined>
  getManyByKey<D>(collection: string, keys: readonly string[]): Promise<Map<string, StoredDocument<D>>>
  /** The one unscoped lookup, by a unique field (an API key's hash). */
  lookup<D>(collection: string, field: string, value: string): Promise<StoredDocument<D> | undefined>
  /** Unscoped, for operators' sweeps (jobs left queued): documents whose field has this value. */
  lookupAll<D>(collection: string, field: string, value: string, limit: number): Promise<StoredDocument<D>[]>
  /** Unscoped, for the poller: documents whose integer field is at most `upTo` (never null), lowest first. */
  lookupDue<D>(collection: string, field: string, upTo: number, limit: number): Promise<StoredDocument<D>[]>
  find<D>(collection: string, query: FindQuery): Promise<Page<D>>
  /**
   * How many of an account's documents the conditions select, counted on
   * their indexes; with `upTo`, no more than that many are counted (a page's
   * "1,000+" costs no more than a thousand rows, however many there are).
   */
  count(collection: string, query: Pick<FindQuery, 'accountId' | 'where'>, upTo?: number): Promise<number>
  /**
   * The source keys of an account's documents whose field holds one of the
   * values, by value (a value with none is absent); one query for the lot.
   */
  keysByField(
    collection: string,
    accountId: number,
    field: string,
    values: readonly string[],
  ): Promise<Map<string, string[]>>
  /**
   * The same page as `find`, as one view's JSON per document, in UTF-8 bytes
   * to be sent as they are; null for a document written before the view
   * existed (the caller renders it instead). `ids` are the documents' ids, in
   * the same order, for the caller's next cursor.
   */
  findView(
    collection: string,
    query: FindQuery,
    view: string,
  ): Promise<{ views: (ViewBytes | null)[]; ids: number[]; hasMore: boolean }>
  /**
   * Documents of a `viewsWhenIdle` collection whose views are missing, newest
   * id first (the likeliest to be read): the projector's idle work.
   */
  missingViews<D>(collection: string, limit: number): Promise<StoredDocument<D>[]>
  /**
   * Stores documents' views, each only if its document is still at the
   * revision the views were rendered from (a newer one waits for its own);
   * returns how many were stored.
   */
  fillViews(collection: string, views: readonly DocumentViews[]): Promise<number>
  /**
   * Writes documents and moves each named projection's checkpoint to
   * `checkpoint`: the runner commits every read model's share of a batch at
   * once. The embedded store does it all in one transaction; every store keeps
   * each checkpoint monotonic.
   */
  commit(
    projections: readonly string[],
    writes: readonly (DocumentWrite | DocumentAppend)[],
    checkpoint: Position,
  ): Promise<void>
  /**
   * A store that keeps pending events (a collection's `pending`): the
   * revision of each stored document and how many events it has pending,
   * without reading it. Appends are written only by a store that has it.
   */
  pendingOf?(collection: string, keys: readonly string[]): Promise<Map<string, { revision: number; pending: number }>>
  checkpoint(projection: string): Promise<Position | undefined>
  /**
   * Starts a rebuild: an empty shadow of the collection, with its own
   * checkpoint, that a projection can fill from position 0 while the live
   * collection keeps serving. Returns the shadow's name. The shadow has no
   * query indexes until `indexRebuild`: building each once, after the bulk
   * of its documents, is cheaper than keeping it up to date row by row.
   */
  prepareRebuild(collection: string, shadowProjection: string): Promise<string>
  /** Builds the query indexes of a rebuild's shadow, before it catches up and is swapped in. */
  indexRebuild(collection: string): Promise<void>
  /**
   * Swaps the shadow in, atomically, with its checkpoint as the projection's,
   * when the shadow has caught up with the live projection; false (nothing
   * changed) when it has not yet.
   */
  completeRebuild(collection: string, projection: string, shadowProjection: string): Promise<boolean>
  /**
   * The shadow of a rebuild another connection prepared, for this one to write
   * to as well (a rebuild's worker threads); returns its name.
   */
  joinRebuild(collection: string): string
  /** Empties a collection and forgets a projection's checkpoint (tests). */
  reset(collection: string, projection: string): Promise<void>
  close(): Promise<void>
}

/** The reads every store answers from its documents: by id, key or indexed field, and pages of documents or views. */
export type DocumentReads = Pick<
  ReadStore,
  | 'get'
  | 'getByKey'
  | 'getManyByKey'
  | 'lookup'
  | 'lookupAll'
  | 'lookupDue'
  | 'keysByField'
  | 'find'
  | 'count'
  | 'findView'
  | 'missingViews'
>

/**
 * Whether a lookup across accounts (`lookup`, `lookupAll`) is served by a
 * swept value's index or a lookup field's. Any other would read the whole
 * collection on every call, a cost that grows with the installation, so it
 * is refused as the bug it is.
 */
export function acrossAccounts(spec: CollectionSpec, field: string, value: string): 'swept' | 'lookup' {
  if (spec.sweptValues?.[field] === value) return 'swept'
  if (spec.lookupFields?.includes(field)) return 'lookup'
  throw new Error(`no index serves ${spec.name}.${field} = ${value} across accounts`)
}

/** The indexed fields with an index per account: all but those read only across accounts. */
export const perAccountFields = (spec: CollectionSpec) =>
  Object.keys(spec.fields).filter((f) => !spec.dueFields?.includes(f))

/** A collection's rebuild shadow, as the stores name it. */
export const shadowOf = (spec: CollectionSpec): CollectionSpec => ({ ...spec, name: `${spec.name}__rebuild` })

/**
 * A store's collections by name: `specOf` a known one (an unknown name is a
 * bug in the caller), `joinShadow` makes a collection's rebuild shadow known
 * from now on and returns its name.
 */
export function collectionSpecs(collections: readonly CollectionSpec[]) {
  const specs = new Map(collections.map((c) => [c.name, c]))
  const specOf = (name: string) => {
    const spec = specs.get(name)
    if (!spec) throw new Error(`unknown collection ${name}`)
    return spec
  }
  const joinShadow = (collection: string) => {
    const shadow = shadowOf(specOf(collection))
    specs.set(shadow.name, shadow)
    return shadow.name
  }
  return { specOf, joinShadow }
}

/** Rows of (value, key) as keys by value, for the adapters' keysByField. */
export function groupKeys(rows: readonly { value: string; key: string }[]): Map<string, string[]> {
  const byValue = new Map<string, string[]>()
  for (const { value, key } of rows) {
    const keys = byValue.get(value)
    if (keys) keys.push(key)
    else byValue.set(value, [key])
  }
  return byValue
}
