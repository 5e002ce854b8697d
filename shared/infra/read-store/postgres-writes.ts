import type pg from 'pg'
import { pendingLines, viewColumns } from './sql-tables.ts'
import { type CollectionSpec, checkViewNames, type DocumentAppend, type DocumentWrite, isAppend } from './port.ts'
import { fieldColumnsOf } from './postgres-tables.ts'

/* A projector's commit on PostgreSQL: whole documents upserted, events appended to documents' pending lines. */

/**
 * A commit's writes as statements: each collection's consecutive whole
 * documents in one, its consecutive appends in another. A collection's whole
 * documents go before its appends, unless a document of it is both written
 * whole and appended to: then they keep the order given.
 */
export function runsOf(writes: readonly (DocumentWrite | DocumentAppend)[]) {
  const byCollection = new Map<string, (DocumentWrite | DocumentAppend)[]>()
  for (const w of writes) {
    const list = byCollection.get(w.collection)
    if (list) list.push(w)
    else byCollection.set(w.collection, [w])
  }
  const runs: { collection: string; writes: DocumentWrite[]; appends?: DocumentAppend[] }[] = []
  for (const [collection, list] of byCollection) {
    const appended = new Set(list.filter(isAppend).map((a) => a.key))
    const mixed = list.some((w) => !isAppend(w) && appended.has(w.key))
    const ordered = mixed ? list : [...list.filter((w) => !isAppend(w)), ...list.filter(isAppend)]
    for (const w of ordered) {
      const last = runs[runs.length - 1]
      const joins = last?.collection === collection && (last.appends !== undefined) === isAppend(w)
      if (!joins) runs.push(isAppend(w) ? { collection, writes: [], appends: [w] } : { collection, writes: [w] })
      else if (isAppend(w)) last.appends!.push(w)
      else last.writes.push(w)
    }
  }
  return runs
}

/**
 * A column of rows sent to the server: its name, its type, and `json` when
 * its text values are JSON (a document, pending lines): never empty, never
 * holding the separator raw, so never looked through for it.
 */
export type Column = readonly [name: string, type: string, holds?: 'json']
type Value = string | number | null | undefined

/** Columns whose values need no look for an empty value or the separator. */
const unchecked = ([, type, holds]: Column) => holds === 'json' || type !== 'text'

/** Separates the values of a column sent as one text: JSON.stringify never writes it raw (it writes \u001e). */
const SEPARATOR = '\x1e'

/**
 * Rows as `unnest(…) AS r(columns)` over one parameter a column, numbered
 * from `$1`: the column's values joined by SEPARATOR (NULL as nothing) and
 * split by the server without reading them. A column with an empty value, or
 * one holding the separator, goes as an array instead, each value quoted.
 * Rows sent as one JSON parameter (`json_to_recordset`) were parsed twice by
 * the server, the cast and then the function, their documents' quotes
 * unescaped a character at a time: a fifth of its CPU on batches of new
 * trackers.
 */
export function rowsOf(columns: readonly Column[], rows: readonly (readonly Value[])[]) {
  const arrays: string[] = []
  const params = columns.map((column, c) => {
    const type = column[1]
    const check = !unchecked(column)
    // One pass a column: a commit sends thousands of rows of a dozen columns.
    const values: Value[] = new Array(rows.length)
    let quoted = false
    for (let r = 0; r < rows.length; r++) {
      const v = rows[r]![c] ?? null
      values[r] = v
      if (check && typeof v === 'string' && (v === '' || v.includes(SEPARATOR))) quoted = true
    }
    if (quoted) {
      arrays.push(`$${c + 1}::${type}[]`)
      return values
    }
    arrays.push(`string_to_array($${c + 1}, E'\\x1e', '')::${type}[]`)
    return values.join(SEPARATOR)
  })
  return { source: `unnest(${arrays.join(', ')}) AS r(${columns.map(([name]) => name).join(', ')})`, params }
}

/**
 * How a commit writes a document it believes new: `inserted` as a plain
 * INSERT, which PostgreSQL makes without the look for a conflicting row that
 * `ON CONFLICT` costs first (a fifth to a third more a row); `checked` as
 * every other write. A row met after all (a replay) fails the plain INSERT,
 * and the commit is made again, checked.
 */
export type NewDocuments = 'inserted' | 'checked'

/**
 * A collection's share of a commit: each document replaces the stored one
 * only at a newer revision (a write built on an older state is never applied
 * over a newer one). A key written twice in one commit is written once, at
 * its highest revision, as one after the other would leave it. Documents
 * believed new go in a statement of their own when `inserted`.
 */
export async function upsert(
  client: pg.ClientBase,
  spec: CollectionSpec,
  writes: readonly DocumentWrite[],
  newDocuments: NewDocuments,
) {
  const latest = new Map<string, DocumentWrite>()
  for (const w of writes) {
    checkViewNames(spec, w.views)
    const known = latest.get(w.key)
    if (!known || w.revision > known.revision) latest.set(w.key, w)
  }
  const all = [...latest.values()]
  const inserted = newDocuments === 'inserted' ? all.filter((w) => w.absent) : []
  const checked = inserted.length > 0 ? all.filter((w) => !w.absent) : all
  if (inserted.length > 0) await writeDocuments(client, spec, inserted, false)
  if (checked.length > 0) await writeDocuments(client, spec, checked, true)
}

/** Documents in one statement: `checked`, each replacing a stored one only at a newer revision; else inserted. */
async function writeDocuments(
  client: pg.ClientBase,
  spec: CollectionSpec,
  writes: readonly DocumentWrite[],
  checked: boolean,
) {
  const fieldNames = Object.keys(spec.fields)
  const columns: Column[] = [
    ['account_id', 'bigint'],
    ['id', 'bigint'],
    ['key', 'text'],
    ['revision', 'int'],
    ['doc', 'json'],
    ...fieldColumnsOf(spec),
    ...viewColumns(spec).map((v): Column => [v, 'text']),
  ]
  const { source, params } = rowsOf(
    columns,
    writes.map((w) => [
      w.accountId,
      w.id,
      w.key,
      w.revision,
      JSON.stringify(w.doc),
      ...fieldNames.map((f) => w.fields[f]),
      ...(spec.views ?? []).map((v) => w.views?.[v]),
    ]),
  )
  const names = columns.map(([name]) => name)
  const onConflict = replacingNewer(names, spec.pending ? ['pending = NULL', 'pending_count = 0'] : [])
  await client.query(
    `INSERT INTO ${spec.name} AS t (${names.join(', ')}) SELECT * FROM ${source} ${checked ? onConflict : ''}`,
    params,
  )
}

/** What makes an INSERT of `columns` replace the stored row of its key, only at a newer revision; `also` sets more. */
const replacingNewer = (columns: readonly string[], also: readonly string[]) =>
  `ON CONFLICT (key) DO UPDATE SET ${[
    ...columns.filter((n) => n !== 'key').map((n) => `${n} = excluded.${n}`),
    ...also,
  ].join(', ')}
     WHERE excluded.revision > t.revision`

/**
 * A collection's appends: new documents made of their events alone (`null`
 * until a read or the views' filling folds them), replacing a stored one only
 * at a newer revision; then events added to stored documents' pending lines,
 * their views dropped, if each is still at the revision the projection read.
 * The projection is its documents' only writer: one that moved means a bug,
 * and the whole commit is refused.
 */
export async function appendPending(
  client: pg.ClientBase,
  spec: CollectionSpec,
  appends: readonly DocumentAppend[],
  newDocuments: NewDocuments,
) {
  if (!spec.pending) throw new Error(`${spec.name} keeps no pending events`)
  const fieldNames = Object.keys(spec.fields)
  const views = viewColumns(spec)
  const created = appends.filter((a) => a.creates)
  if (created.length > 0) {
    const columns: Column[] = [
      ['account_id', 'bigint'],
      ['id', 'bigint'],
      ['key', 'text'],
      ['revision', 'int'],
      ['pending', 'text', 'json'],
      ['pending_count', 'int'],
      ...fieldColumnsOf(spec),
    ]
    const { source, params } = rowsOf(
      columns,
      created.map((a) => [
        a.creates!.accountId,
        a.creates!.id,
        a.key,
        a.revision,
        pendingLines(a.events),
        a.events.length,
        ...fieldNames.map((f) => a.creates!.fields[f]),
      ]),
    )
    const names = columns.map(([name]) => name)
    const onConflict = replacingNewer(
      ['doc', ...names],
      views.map((v) => `${v} = NULL`),
    )
    await client.query(
      `INSERT INTO ${spec.name} AS t (doc, ${names.join(', ')}) SELECT 'null'::json, * FROM ${source}
       ${newDocuments === 'checked' ? onConflict : ''}`,
      params,
    )
  }
  const added = appends.filter((a) => !a.creates)
  if (added.length === 0) return
  const { source, params } = rowsOf(
    [
      ['key', 'text'],
      ['after', 'int'],
      ['revision', 'int'],
      ['lines', 'text', 'json'],
      ['n', 'int'],
    ],
    added.map((a) => [a.key, a.after, a.revision, pendingLines(a.events), a.events.length]),
  )
  const { rows: moved } = await client.query(
    `WITH v AS (SELECT * FROM ${source}),
       updated AS (
         UPDATE ${spec.name} t SET revision = v.revision, pending = coalesce(t.pending || E'\n', '') || v.lines,
                pending_count = t.pending_count + v.n${views.map((c) => `, ${c} = NULL`).join('')}
           FROM v WHERE t.key = v.key AND t.revision = v.after
         RETURNING t.key)
     SELECT v.key, v.after FROM v WHERE v.key NOT IN (SELECT key FROM updated)`,
    params,
  )
  const [stale] = moved as { key: string; after: number }[]
  if (stale) throw new Error(`${stale.key} is no longer at revision ${stale.after}`)
}
