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
 * A collection's share of a commit in one statement: each document replaces
 * the stored one only at a newer revision (a write built on an older state
 * is never applied over a newer one). A key written twice in one commit is
 * written once, at its highest revision, as one after the other would leave it.
 */
export async function upsert(client: pg.ClientBase, spec: CollectionSpec, writes: readonly DocumentWrite[]) {
  const latest = new Map<string, DocumentWrite>()
  for (const w of writes) {
    checkViewNames(spec, w.views)
    const known = latest.get(w.key)
    if (!known || w.revision > known.revision) latest.set(w.key, w)
  }
  const list = [...latest.values()]
  const fieldNames = Object.keys(spec.fields)
  // The rows as one JSON parameter, each parsed once into a record (json_to_recordset):
  // arrays of JSON strings would be escaped element by element on both sides.
  const columns: [string, string][] = [
    ['account_id', 'bigint'],
    ['id', 'bigint'],
    ['key', 'text'],
    ['revision', 'int'],
    ['doc', 'json'],
    ...fieldColumnsOf(spec),
    ...viewColumns(spec).map((v): [string, string] => [v, 'text']),
  ]
  const rows = list.map((w) => {
    const row: Record<string, unknown> = {
      account_id: w.accountId,
      id: w.id,
      key: w.key,
      revision: w.revision,
      doc: w.doc,
    }
    for (const f of fieldNames) row[`f_${f}`] = w.fields[f] ?? null
    for (const v of spec.views ?? []) row[`v_${v}`] = w.views?.[v] ?? null
    return row
  })
  const names = columns.map(([name]) => name)
  await client.query(
    `INSERT INTO ${spec.name} AS t (${names.join(', ')})
     SELECT * FROM json_to_recordset($1::json) AS r(${columns.map(([name, type]) => `${name} ${type}`).join(', ')})
     ON CONFLICT (key) DO UPDATE SET ${names
       .filter((n) => n !== 'key')
       .map((n) => `${n} = excluded.${n}`)
       .join(', ')}${spec.pending ? ', pending = NULL, pending_count = 0' : ''}
     WHERE excluded.revision > t.revision`,
    [JSON.stringify(rows)],
  )
}

/**
 * A collection's appends: new documents made of their events alone (`null`
 * until a read or the views' filling folds them), replacing a stored one only
 * at a newer revision; then events added to stored documents' pending lines,
 * their views dropped, if each is still at the revision the projection read.
 * The projection is its documents' only writer: one that moved means a bug,
 * and the whole commit is refused.
 */
export async function appendPending(client: pg.ClientBase, spec: CollectionSpec, appends: readonly DocumentAppend[]) {
  if (!spec.pending) throw new Error(`${spec.name} keeps no pending events`)
  const fieldNames = Object.keys(spec.fields)
  const views = viewColumns(spec)
  const created = appends.filter((a) => a.creates)
  if (created.length > 0) {
    const rows = created.map((a) => {
      const row: Record<string, unknown> = {
        account_id: a.creates!.accountId,
        id: a.creates!.id,
        key: a.key,
        revision: a.revision,
        pending: pendingLines(a.events),
        pending_count: a.events.length,
      }
      for (const f of fieldNames) row[`f_${f}`] = a.creates!.fields[f] ?? null
      return row
    })
    const columns: [string, string][] = [
      ['account_id', 'bigint'],
      ['id', 'bigint'],
      ['key', 'text'],
      ['revision', 'int'],
      ['pending', 'text'],
      ['pending_count', 'int'],
      ...fieldColumnsOf(spec),
    ]
    const names = columns.map(([name]) => name)
    await client.query(
      `INSERT INTO ${spec.name} AS t (doc, ${names.join(', ')})
       SELECT 'null'::json, * FROM json_to_recordset($1::json) AS r(${columns.map(([name, type]) => `${name} ${type}`).join(', ')})
       ON CONFLICT (key) DO UPDATE SET doc = excluded.doc, ${[
         ...names.filter((n) => n !== 'key').map((n) => `${n} = excluded.${n}`),
         ...views.map((v) => `${v} = NULL`),
       ].join(', ')}
       WHERE excluded.revision > t.revision`,
      [JSON.stringify(rows)],
    )
  }
  const added = appends.filter((a) => !a.creates)
  if (added.length === 0) return
  const { rows: moved } = await client.query(
    `WITH v AS (SELECT * FROM json_to_recordset($1::json) AS v(key text, after int, revision int, lines text, n int)),
       updated AS (
         UPDATE ${spec.name} t SET revision = v.revision, pending = coalesce(t.pending || E'\n', '') || v.lines,
                pending_count = t.pending_count + v.n${views.map((c) => `, ${c} = NULL`).join('')}
           FROM v WHERE t.key = v.key AND t.revision = v.after
         RETURNING t.key)
     SELECT v.key, v.after FROM v WHERE v.key NOT IN (SELECT key FROM updated)`,
    [
      JSON.stringify(
        added.map((a) => ({
          key: a.key,
          after: a.after,
          revision: a.revision,
          lines: pendingLines(a.events),
          n: a.events.length,
        })),
      ),
    ],
  )
  const [stale] = moved as { key: string; after: number }[]
  if (stale) throw new Error(`${stale.key} is no longer at revision ${stale.after}`)
}
