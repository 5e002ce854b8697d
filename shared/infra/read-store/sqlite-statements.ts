import type Database from 'better-sqlite3'
import { applyWalCheckpoints, type WalCheckpoints } from '../sqlite/checkpoints.ts'
import { openWalFile } from '../sqlite/open.ts'
import { compress, compressedView, decompressText } from './lz4.ts'
import { queryIndexes, retiredIndexes, viewColumns, withPending } from './sql-tables.ts'
import { viewBytesOf, type CollectionSpec, type StoredDocument } from './port.ts'

/* The embedded read store's file, its tables, and the statements every read and write prepares once. */

/** A stored document or view: JSON text, or (in a compressed collection) LZ4-compressed JSON. */
export type Stored = string | Buffer

export interface Row {
  account_id: number
  id: number
  key: string
  revision: number
  doc: Stored
  /** A collection with `pending`: its events appended since the document was written, one JSON text a line. */
  pending?: string | null
}

/*
 * A compressed collection's documents and views are stored LZ4-compressed
 * (./lz4.ts), as MongoDB's storage engine compresses its own, so the orders of
 * a large account fit the OS page cache. LZ4 rather than zlib's deflate: it
 * is several times faster per document, for somewhat more bytes.
 * The value's type says how it is stored: TEXT is plain JSON, a BLOB is
 * compressed (a TEXT column keeps a BLOB as it is), so rows written either way
 * read back.
 */
export const encode = (spec: CollectionSpec, json: string): Stored => (spec.compressed ? compress(json) : json)
const textOf = (value: Stored) => (typeof value === 'string' ? value : decompressText(value))
export const viewOf = (value: Stored) =>
  typeof value === 'string' ? viewBytesOf(Buffer.from(value)) : compressedView(value)

/** A stored row as its document, with the events pending on it folded in. */
export const toStored = <D>(spec: CollectionSpec, r: Row): StoredDocument<D> =>
  withPending<D>(
    spec,
    { accountId: r.account_id, id: r.id, key: r.key, revision: r.revision, doc: JSON.parse(textOf(r.doc)) },
    r.pending,
  )

export const operators = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const
const NAME = /^[a-z][a-z0-9_]*$/

export type SpecOf = (collection: string) => CollectionSpec

export function openDatabase(file: string, walCheckpoints: WalCheckpoints | undefined) {
  // 4 KiB pages: a projector's commit writes one page for each of the 30-odd
  // tables and indexes it touches, so smaller pages write about half the
  // bytes to the log and its checkpoint, though a large order now overflows.
  const db = openWalFile(file, 4096)
  // The page cache holds what a projector's transaction writes. No memory
  // map: mapped pages count in the process's memory as the tables grow, for
  // no faster reads.
  db.pragma('cache_size = -16384')
  applyWalCheckpoints(db, walCheckpoints)
  db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL)')
  return db
}

/**
 * Creates a collection's table and its query indexes (`indexed`: a rebuild's
 * shadow gets them once it is filled). A rebuilt table keeps the index names
 * it was built with, so an index is matched by its suffix.
 */
export function createTable(db: Database.Database, spec: CollectionSpec, indexed = true) {
  for (const name of [spec.name, ...Object.keys(spec.fields)]) {
    if (!NAME.test(name)) throw new Error(`invalid collection or field name ${name}`)
  }
  const columns = Object.entries(spec.fields).map(([f, t]) => `, f_${f} ${t === 'integer' ? 'INTEGER' : 'TEXT'}`)
  for (const name of spec.views ?? []) if (!NAME.test(name)) throw new Error(`invalid view name ${name}`)
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${spec.name} (
      account_id INTEGER NOT NULL,
      id         INTEGER NOT NULL,
      key        TEXT    NOT NULL UNIQUE,
      revision   INTEGER NOT NULL,
      doc        TEXT    NOT NULL${spec.pending ? `,\n      ${PENDING_COLUMNS}` : ''}${columns.join('')}
    )`)
  // A field or view added after the table was created becomes a new column; documents fill it as they are next written.
  const present = (db.prepare(`PRAGMA table_info(${spec.name})`).all() as { name: string }[]).map((c) => c.name)
  for (const [f, t] of Object.entries(spec.fields))
    if (!present.includes(`f_${f}`))
      db.exec(`ALTER TABLE ${spec.name} ADD COLUMN f_${f} ${t === 'integer' ? 'INTEGER' : 'TEXT'}`)
  for (const view of spec.views ?? [])
    if (!present.includes(`v_${view}`)) db.exec(`ALTER TABLE ${spec.name} ADD COLUMN v_${view} TEXT`)
  for (const column of spec.pending ? PENDING_COLUMNS.split(', ') : [])
    if (!present.includes(column.split(' ')[0]!)) db.exec(`ALTER TABLE ${spec.name} ADD COLUMN ${column}`)
  const existing = (db.prepare(`PRAGMA index_list(${spec.name})`).all() as { name: string }[]).map((i) => i.name)
  // Index names carry a generation: a rebuilt table keeps its indexes' names when it is
  // renamed into place, and the next rebuild's shadow must not meet them.
  const generation = Date.now().toString(36)
  const ensureIndex = (suffix: string, definition: string) => {
    if (!existing.some((name) => name.endsWith(suffix)))
      db.exec(`CREATE ${definition.replace('INDEX', `INDEX ${spec.name}_${generation}${suffix}`)}`)
  }
  if (!indexed) return
  for (const name of retiredIndexes(spec, existing)) db.exec(`DROP INDEX IF EXISTS ${name}`)
  for (const [suffix, definition] of queryIndexes(spec)) ensureIndex(suffix, definition)
}

/** A collection with `pending`: its events appended since the document was written, one JSON text a line, and how many. */
const PENDING_COLUMNS = 'pending TEXT, pending_count INTEGER NOT NULL DEFAULT 0'
/** What a whole write of a document sets them to. */
const NONE_PENDING = ', pending = NULL, pending_count = 0'

/** The column of an indexed field; a field without an index is a bug in the caller. */
export const fieldColumn = (spec: CollectionSpec, field: string) => {
  if (!(field in spec.fields)) throw new Error(`${field} is not an indexed field of ${spec.name}`)
  return `f_${field}`
}

/** Statements prepared once each, and the SQL of the writes built once per collection. */
export class Statements {
  readonly #prepared = new Map<string, Database.Statement>()
  /** The SQL of each write, by what it writes, built once. */
  readonly #written = new Map<string, string>()

  constructor(private readonly db: Database.Database) {}

  prepared<P extends unknown[], R>(sql: string) {
    let s = this.#prepared.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.#prepared.set(sql, s)
    }
    return s as Database.Statement<P, R>
  }

  /** Tables were swapped: statements prepared on the old ones are dropped. */
  clear() {
    this.#prepared.clear()
  }

  /** A write's statement, its SQL built on first use under `name`. */
  #writing(name: string, build: () => string) {
    let sql = this.#written.get(name)
    if (sql === undefined) {
      sql = build()
      this.#written.set(name, sql)
    }
    return this.prepared(sql)
  }

  /** The upsert of a collection's documents: only a newer revision replaces a document. */
  upsert(spec: CollectionSpec) {
    return this.#writing(`upsert ${spec.name}`, () => {
      const columns = [...Object.keys(spec.fields).map((f) => `f_${f}`), ...viewColumns(spec)]
      return `INSERT INTO ${spec.name} (account_id, id, key, revision, doc${columns.map((c) => `, ${c}`).join('')})
      VALUES (?, ?, ?, ?, ?${columns.map(() => ', ?').join('')})
      ON CONFLICT (key) DO UPDATE SET account_id = excluded.account_id, id = excluded.id,
        revision = excluded.revision, doc = excluded.doc${spec.pending ? NONE_PENDING : ''}${columns.map((c) => `, ${c} = excluded.${c}`).join('')}
      WHERE excluded.revision > ${spec.name}.revision`
    })
  }

  /**
   * The insert of a new document made of its pending events alone, replacing
   * a stored one only at a newer revision (a replay meets documents it made).
   */
  createdPending(spec: CollectionSpec) {
    return this.#writing(`created ${spec.name}`, () => {
      const fields = Object.keys(spec.fields).map((f) => `f_${f}`)
      const views = viewColumns(spec)
      return `INSERT INTO ${spec.name} (account_id, id, key, revision, doc, pending, pending_count${fields.map((c) => `, ${c}`).join('')})
      VALUES (?, ?, ?, ?, 'null', ?, ?${fields.map(() => ', ?').join('')})
      ON CONFLICT (key) DO UPDATE SET account_id = excluded.account_id, id = excluded.id,
        revision = excluded.revision, doc = excluded.doc, pending = excluded.pending,
        pending_count = excluded.pending_count${[...fields.map((c) => `, ${c} = excluded.${c}`), ...views.map((c) => `, ${c} = NULL`)].join('')}
      WHERE excluded.revision > ${spec.name}.revision`
    })
  }

  /** Events added to a stored document's pending lines, its views dropped, if it is still at the revision given. */
  appended(spec: CollectionSpec) {
    return this.#writing(
      `appended ${spec.name}`,
      () => `UPDATE ${spec.name} SET revision = ?, pending = coalesce(pending || char(10), '') || ?,
           pending_count = pending_count + ?${viewColumns(spec)
             .map((c) => `, ${c} = NULL`)
             .join('')}
         WHERE key = ? AND revision = ?`,
    )
  }

  /** A document's views stored, with the document folded where it had pending events, if still at the revision given. */
  filled(spec: CollectionSpec, folded: boolean) {
    return this.#writing(`filled ${spec.name} ${folded}`, () => {
      const views = viewColumns(spec).map((c) => `${c} = ?`)
      // A document read with pending events is stored folded with its views: its readers fold them no more.
      return `UPDATE ${spec.name} SET ${views.join(', ')}${folded ? `, doc = ?${NONE_PENDING}` : ''}
        WHERE key = ? AND revision = ?`
    })
  }

  /**
   * The update in place of the stored document a write replaces, if still at
   * the revision it was built from, naming only the indexed fields that
   * changed: SQLite rewrites an index's entry whenever an UPDATE names one of
   * its columns, even with the value it holds (a carrier event changes an
   * order's document and view, none of its fields).
   */
  update(spec: CollectionSpec, changed: readonly string[]) {
    return this.#writing(`update ${spec.name} ${changed.join(' ')}`, () => {
      const columns = [...changed.map((f) => fieldColumn(spec, f)), ...viewColumns(spec)]
      return `UPDATE ${spec.name} SET revision = ?, doc = ?${spec.pending ? NONE_PENDING : ''}${columns.map((c) => `, ${c} = ?`).join('')}
      WHERE key = ? AND revision = ?`
    })
  }
}

export function checkpointStatements(db: Database.Database) {
  return {
    of: db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE projection = ?'),
    forget: db.prepare('DELETE FROM checkpoints WHERE projection = ?'),
    save: db.prepare(
      `INSERT INTO checkpoints (projection, position) VALUES (?, ?)
       ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
    ),
    /**
     * Moves each named projection's checkpoint (a JSON array of names) up to
     * the position, never down, in one statement: a commit moves a dozen.
     * Positions are decimal text of any length, so the longer is the greater.
     */
    advance: db.prepare<[position: string, projections: string]>(
      `INSERT INTO checkpoints (projection, position) SELECT value, ? FROM json_each(?) WHERE true
       ON CONFLICT (projection) DO UPDATE SET position = excluded.position
       WHERE length(position) < length(excluded.position)
          OR (length(position) = length(excluded.position) AND position < excluded.position)`,
    ),
  }
}
