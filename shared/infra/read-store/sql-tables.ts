import {
  acrossAccounts,
  type CollectionSpec,
  type EventToAppend,
  type PendingEvent,
  perAccountFields,
  type StoredDocument,
} from './port.ts'

/*
 * What the SQLite and PostgreSQL stores share of a collection's table: the
 * columns a document is read from, its view columns, its query indexes, and
 * its pending events' text.
 */

/**
 * A document's columns, with its pending events where its collection keeps
 * them; `t.` before each in a page's query, where the table is `t`. Reading a
 * document never copies its views (an order's full view is larger than the order).
 */
export const documentColumnsOf = (spec: CollectionSpec, page = false) =>
  page
    ? spec.pending
      ? `${PAGE_DOCUMENT}, t.pending`
      : PAGE_DOCUMENT
    : spec.pending
      ? `${DOCUMENT}, pending`
      : DOCUMENT
const DOCUMENT = 'account_id, id, key, revision, doc'
const PAGE_DOCUMENT = 't.account_id, t.id, t.key, t.revision, t.doc'

/** A collection's view columns, in the order its views are listed. */
export const viewColumns = (spec: CollectionSpec) => (spec.views ?? []).map((v) => `v_${v}`)

/** The column whose NULL marks a document of a `viewsWhenIdle` collection as missing its views (they are filled together). */
export const missingViewColumn = (spec: CollectionSpec) => (spec.viewsWhenIdle ? viewColumns(spec)[0] : undefined)

/**
 * A collection's query indexes, each as the suffix of its name and its
 * definition (`INDEX ON …`, the store names it): by id and by each field per
 * account, each lookup field, due field and swept value across accounts, and
 * the documents missing their views. A field's index holds only the documents where it is
 * set: a filter compares the field with a value, which no NULL matches, and a
 * document without it (an order facts row of the delivery stats, an order
 * without `ordered_at`) then costs its write no entry.
 */
export function queryIndexes(spec: CollectionSpec): [suffix: string, definition: string][] {
  const table = spec.name
  const marker = missingViewColumn(spec)
  return [
    ['_by_account_id', `UNIQUE INDEX ON ${table} (account_id, id)`],
    ...perAccountFields(spec).map((f): [string, string] => [
      `_by_${f}_set`,
      `INDEX ON ${table} (account_id, f_${f}, id) WHERE f_${f} IS NOT NULL`,
    ]),
    ...(spec.lookupFields ?? []).map((f): [string, string] => [`_across_${f}`, `INDEX ON ${table} (f_${f})`]),
    ...(spec.dueFields ?? []).map((f): [string, string] => [
      `_due_${f}`,
      `INDEX ON ${table} (f_${f}) WHERE f_${f} IS NOT NULL`,
    ]),
    ...Object.entries(spec.sweptValues ?? {}).map(([f, value]): [string, string] => [
      `_swept_${f}_${value}`,
      `INDEX ON ${table} (f_${f}) WHERE ${sweptCondition(f, value)}`,
    ]),
    ...(marker ? [['_missing_views', `INDEX ON ${table} (id) WHERE ${marker} IS NULL`] as [string, string]] : []),
  ]
}

/**
 * A swept value's condition, its value written in: a partial index serves
 * only a query naming the same literal (a bound parameter could be any value).
 */
export const sweptCondition = (field: string, value: string) => {
  if (!/^[a-z][a-z0-9_]*$/.test(value)) throw new Error(`invalid swept value ${value} of ${field}`)
  return `f_${field} = '${value}'`
}

/** A lookup's condition across accounts and what it binds: a swept value is written in, as its index names it. */
export const lookupWhere = (spec: CollectionSpec, field: string, value: string, parameter: string) =>
  acrossAccounts(spec, field, value) === 'swept'
    ? { condition: sweptCondition(field, value), values: [] as string[] }
    : { condition: `f_${field} = ${parameter}`, values: [value] }

/** A query index's name ends with its suffix (the store prefixes the table and a generation). */
const QUERY_INDEX = /_(?:by|across|due|swept)_[a-z0-9_]+$|_missing_views$/

/**
 * The query indexes among a table's indexes that its collection no longer
 * asks for (a field dropped, or an index redefined under a new suffix): a
 * store drops them, so no write keeps paying for an index no read uses.
 */
export function retiredIndexes(spec: CollectionSpec, existing: readonly string[]) {
  const wanted = queryIndexes(spec).map(([suffix]) => suffix)
  return existing.filter((name) => QUERY_INDEX.test(name) && !wanted.some((suffix) => name.endsWith(suffix)))
}

/*
 * A collection with `pending` keeps a document's appended events as text, one
 * JSON line an event: an append adds lines without reading the others, and
 * the text stays as the event store wrote the data (PostgreSQL's jsonb would
 * reorder its keys).
 */

/** A pending line: a PendingEvent's JSON, its data copied where the event store gave it as text. */
const pendingLine = (e: EventToAppend) =>
  'dataJson' in e
    ? `{"type":${JSON.stringify(e.type)},"revision":${e.revision},"data":${e.dataJson}}`
    : JSON.stringify(e)

/** Events as the lines an append adds. */
export const pendingLines = (events: readonly EventToAppend[]) => events.map(pendingLine).join('\n')

/** JSON.stringify writes no line break: the lines read as one array. */
const pendingEvents = (lines: string): PendingEvent[] => JSON.parse(`[${lines.replaceAll('\n', ',')}]`)

/** A stored document with the events pending on it (its row's `pending`) folded in, and how many. */
export function withPending<D>(
  spec: CollectionSpec,
  stored: StoredDocument<D>,
  pending: string | null | undefined,
): StoredDocument<D> {
  if (!pending || !spec.pending) return stored
  const events = pendingEvents(pending)
  const { accountId, id, key, revision } = stored
  // A literal, not `{ ...stored, pending }` (docs/contributing.md, objects on hot paths).
  return { accountId, id, key, revision, doc: spec.pending.fold(stored.doc, events) as D, pending: events.length }
}
