import Database from 'better-sqlite3'
import { applyWalCheckpoints, type WalCheckpoints } from '../sqlite/checkpoints.ts'
import { compress, compressedView, decompressText } from './lz4.ts'
import {
  documentColumnsOf,
  missingViewColumn,
  pendingLines,
  queryIndexes,
  retiredIndexes,
  viewColumns,
  withPending,
} from './sql-tables.ts'
import {
  collectionSpecs,
  groupKeys,
  shadowOf,
  viewBytesOf,
  type CollectionSpec,
  type DocumentAppend,
  type DocumentReads,
  type DocumentWrite,
  isAppend,
  type FindQuery,
  type ReadStore,
  type StoredDocument,
} from './port.ts'

/** A stored document or view: JSON text, or (in a compressed collection) LZ4-compressed JSON. */
type Stored = string | Buffer

interface Row {
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
const encode = (spec: CollectionSpec, json: string): Stored => (spec.compressed ? compress(json) : json)
const textOf = (value: Stored) => (typeof value === 'string' ? value : decompressText(value))
const viewOf = (value: Stored) => (typeof value === 'string' ? viewBytesOf(Buffer.from(value)) : compressedView(value))

/** A stored row as its document, with the events pending on it folded in. */
const toStored = <D>(spec: CollectionSpec, r: Row): StoredDocument<D> =>
  withPending<D>(
    spec,
    { accountId: r.account_id, id: r.id, key: r.key, revision: r.revision, doc: JSON.parse(textOf(r.doc)) },
    r.pending,
  )

const operators = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const
const NAME = /^[a-z][a-z0-9_]*$/

/**
 * Embedded read store: a table per collection holding each document as JSON
 * beside its indexed fields. Every index starts with the account id and ends
 * with the id, so a filtered page is one index range scan in id order.
 */
export function createSqliteReadStore(
  file: string,
  collections: readonly CollectionSpec[],
  walCheckpoints?: WalCheckpoints,
): ReadStore {
  const db = openDatabase(file, walCheckpoints)
  for (const spec of collections) createTable(db, spec)
  const { specOf, joinShadow } = collectionSpecs(collections)
  const sql = new Statements(db)
  const checkpoints = checkpointStatements(db)
  const writes = documentWrites(db, sql, checkpoints, specOf)

  return {
    kind: 'sqlite',
    ...documentReads(sql, specOf),
    ...writes,
    async checkpoint(projection) {
      const row = checkpoints.of.get(projection)
      return row ? BigInt(row.position) : undefined
    },
    async prepareRebuild(collection, shadowProjection) {
      const shadow = shadowOf(specOf(collection))
      db.transaction(() => {
        db.exec(`DROP TABLE IF EXISTS ${shadow.name}`)
        createTable(db, shadow, false)
        checkpoints.forget.run(shadowProjection)
      }).immediate()
      return joinShadow(collection)
    },
    async completeRebuild(collection, projection, shadowProjection) {
      const spec = specOf(collection)
      return db
        .transaction(() => {
          // Under the write lock the live projector cannot commit: compare, then swap.
          const live = BigInt(checkpoints.of.get(projection)?.position ?? 0)
          const rebuilt = BigInt(checkpoints.of.get(shadowProjection)?.position ?? -1)
          if (rebuilt < live) return false
          db.exec(`DROP TABLE ${spec.name}; ALTER TABLE ${shadowOf(spec).name} RENAME TO ${spec.name}`)
          checkpoints.save.run(projection, rebuilt.toString())
          checkpoints.forget.run(shadowProjection)
          sql.clear()
          return true
        })
        .immediate()
    },
    async indexRebuild(collection) {
      // Each index in a statement of its own: a live projector waits for one at a time.
      createTable(db, shadowOf(specOf(collection)))
    },
    joinRebuild: joinShadow,
    async reset(collection, projection) {
      db.transaction(() => {
        db.prepare(`DELETE FROM ${specOf(collection).name}`).run()
        checkpoints.forget.run(projection)
      }).immediate()
    },
    async close() {
      db.close()
    },
  }
}

type SpecOf = (collection: string) => CollectionSpec

function openDatabase(file: string, walCheckpoints: WalCheckpoints | undefined) {
  const db = new Database(file)
  // 16 KiB pages hold several compressed orders with their views without an
  // overflow chain, which a 4 KiB page would need for each (this only takes
  // effect on a new file, before WAL). The page cache holds what a projector's
  // transaction writes. No memory map: mapped pages count in the process's
  // memory as the tables grow, for no faster reads.
  db.pragma('page_size = 16384')
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 10000')
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
function createTable(db: Database.Database, spec: CollectionSpec, indexed = true) {
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
const fieldColumn = (spec: CollectionSpec, field: string) => {
  if (!(field in spec.fields)) throw new Error(`${field} is not an indexed field of ${spec.name}`)
  return `f_${field}`
}

/** Statements prepared once each, and the SQL of the writes built once per collection. */
class Statements {
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

function checkpointStatements(db: Database.Database) {
  return {
    of: db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE projection = ?'),
    forget: db.prepare('DELETE FROM checkpoints WHERE projection = ?'),
    save: db.prepare(
      `INSERT INTO checkpoints (projection, position) VALUES (?, ?)
       ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
    ),
  }
}

/**
 * A page in descending id order: chosen on the index alone (ids and rowids),
 * then only its rows are read, so a range filter sorts small index entries,
 * never whole documents.
 */
function pageRows<R>(sql: Statements, spec: CollectionSpec, query: FindQuery, select: string) {
  const clauses = ['account_id = ?']
  const params: unknown[] = [query.accountId]
  for (const c of query.where ?? []) {
    clauses.push(`${fieldColumn(spec, c.field)} ${operators[c.op]} ?`)
    params.push(c.value)
  }
  if (query.startingAfter !== undefined) {
    clauses.push('id > ?')
    params.push(query.startingAfter)
  }
  if (query.endingBefore !== undefined) {
    clauses.push('id < ?')
    params.push(query.endingBefore)
  }
  // Going forward in time reads upwards from the cursor, then flips the page.
  const forward = query.startingAfter !== undefined && query.endingBefore === undefined
  const order = forward ? 'ASC' : 'DESC'
  const rows = sql
    .prepared<unknown[], R>(
      `SELECT ${select} FROM ${spec.name} t JOIN (
        SELECT rowid AS r FROM ${spec.name} WHERE ${clauses.join(' AND ')} ORDER BY id ${order} LIMIT ?
      ) page ON t.rowid = page.r ORDER BY t.id ${order}`,
    )
    .all(...params, query.limit + 1)
  const page = rows.slice(0, query.limit)
  return { rows: forward ? page.reverse() : page, hasMore: rows.length > query.limit }
}

/** The store's reads: by id, key or indexed field, and pages of documents or of their views. */
function documentReads(sql: Statements, specOf: SpecOf): DocumentReads & Pick<Required<ReadStore>, 'pendingOf'> {
  /** A statement selecting a collection's documents (its table after FROM), with how each row is read. */
  const documents = <P extends unknown[]>(collection: string, from: (table: string) => string) => {
    const spec = specOf(collection)
    const statement = sql.prepared<P, Row>(`SELECT ${documentColumnsOf(spec)} FROM ${from(spec.name)}`)
    return { statement, stored: <D>(row: Row) => toStored<D>(spec, row) }
  }
  return {
    async get<D>(collection: string, accountId: number, id: number) {
      const { statement, stored } = documents<[number, number]>(
        collection,
        (t) => `${t} WHERE account_id = ? AND id = ?`,
      )
      const row = statement.get(accountId, id)
      return row && stored<D>(row)
    },
    async getByKey<D>(collection: string, key: string) {
      const { statement, stored } = documents<[string]>(collection, (t) => `${t} WHERE key = ?`)
      const row = statement.get(key)
      return row && stored<D>(row)
    },
    async getManyByKey<D>(collection: string, keys: readonly string[]) {
      // The keys as one JSON parameter: one statement for a projector's whole batch.
      const { statement, stored } = documents<[string]>(
        collection,
        (t) => `${t} WHERE key IN (SELECT value FROM json_each(?))`,
      )
      return new Map(statement.all(JSON.stringify(keys)).map((row) => [row.key, stored<D>(row)]))
    },
    async lookup<D>(collection: string, field: string, value: string) {
      const column = fieldColumn(specOf(collection), field)
      const { statement, stored } = documents<[string]>(collection, (t) => `${t} WHERE ${column} = ? LIMIT 1`)
      const row = statement.get(value)
      return row && stored<D>(row)
    },
    async lookupAll<D>(collection: string, field: string, value: string, limit: number) {
      const column = fieldColumn(specOf(collection), field)
      const { statement, stored } = documents<[string, number]>(collection, (t) => `${t} WHERE ${column} = ? LIMIT ?`)
      return statement.all(value, limit).map((r) => stored<D>(r))
    },
    async lookupDue<D>(collection: string, field: string, upTo: number, limit: number) {
      const column = fieldColumn(specOf(collection), field)
      const { statement, stored } = documents<[number, number]>(
        collection,
        (t) => `${t} WHERE ${column} <= ? ORDER BY ${column} LIMIT ?`,
      )
      return statement.all(upTo, limit).map((r) => stored<D>(r))
    },
    async keysByField(collection: string, accountId: number, field: string, values: readonly string[]) {
      const spec = specOf(collection)
      const column = fieldColumn(spec, field)
      const rows = sql
        .prepared<[number, string], { value: string; key: string }>(
          `SELECT ${column} AS value, key FROM ${spec.name} WHERE account_id = ? AND ${column} IN (SELECT value FROM json_each(?))`,
        )
        .all(accountId, JSON.stringify(values))
      return groupKeys(rows)
    },
    async find<D>(collection: string, query: FindQuery) {
      const spec = specOf(collection)
      const { rows, hasMore } = pageRows<Row>(sql, spec, query, documentColumnsOf(spec, true))
      return { docs: rows.map((r) => toStored<D>(spec, r)), hasMore }
    },
    async findView(collection, query, view) {
      const spec = specOf(collection)
      if (!spec.views?.includes(view)) throw new Error(`${view} is not a view of ${collection}`)
      const { rows, hasMore } = pageRows<{ id: number; v: Stored | null }>(
        sql,
        spec,
        query,
        `t.id AS id, t.v_${view} AS v`,
      )
      return { views: rows.map((r) => (r.v === null ? null : viewOf(r.v))), ids: rows.map((r) => r.id), hasMore }
    },
    async missingViews<D>(collection: string, limit: number) {
      const marker = missingViewColumn(specOf(collection))
      if (!marker) throw new Error(`${collection} does not fill its views when idle`)
      const { statement, stored } = documents<[number]>(
        collection,
        (t) => `${t} WHERE ${marker} IS NULL ORDER BY id DESC LIMIT ?`,
      )
      return statement.all(limit).map((r) => stored<D>(r))
    },
    async pendingOf(collection: string, keys: readonly string[]) {
      const spec = specOf(collection)
      if (!spec.pending) throw new Error(`${collection} keeps no pending events`)
      const rows = sql
        .prepared<[string], { key: string; revision: number; pending: number }>(
          `SELECT key, revision, pending_count AS pending FROM ${spec.name}
           WHERE key IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(keys))
      return new Map(rows.map((r) => [r.key, { revision: r.revision, pending: r.pending }]))
    },
  }
}

/** A document's views in the collection's view order, encoded as stored; null for a view not given. */
const encodeViews = (spec: CollectionSpec, views: Readonly<Record<string, string>> | undefined) =>
  (spec.views ?? []).map((v) => {
    const view = views?.[v]
    return view === undefined ? null : encode(spec, view)
  })

/** A write with its document and views serialised and encoded as stored; an append with its events as lines. */
type EncodedWrite =
  | { write: DocumentWrite; spec: CollectionSpec; doc: Stored; views: (Stored | null)[] }
  | { append: DocumentAppend; spec: CollectionSpec; lines: string }

/** The store's writes: a projector's commit of documents with its checkpoints, and views filled when idle. */
function documentWrites(
  db: Database.Database,
  sql: Statements,
  checkpoints: ReturnType<typeof checkpointStatements>,
  specOf: SpecOf,
): Pick<ReadStore, 'commit' | 'fillViews'> {
  const fillViews = db.transaction(
    (
      spec: CollectionSpec,
      items: readonly { key: string; revision: number; views: (Stored | null)[]; folded?: Stored }[],
    ) => {
      let filled = 0
      for (const { views, folded, key, revision } of items)
        filled += (
          folded === undefined
            ? sql.filled(spec, false).run(...views, key, revision)
            : sql.filled(spec, true).run(...views, folded, key, revision)
        ).changes
      return filled
    },
  )
  const encodeWrite = (w: DocumentWrite | DocumentAppend): EncodedWrite => {
    const spec = specOf(w.collection)
    if (isAppend(w)) return { append: w, spec, lines: pendingLines(w.events) }
    return { write: w, spec, doc: encode(spec, JSON.stringify(w.doc)), views: encodeViews(spec, w.views) }
  }
  const commit = db.transaction(
    (projections: readonly string[], writes: readonly EncodedWrite[], checkpoint: bigint) => {
      for (const encoded of writes) {
        if ('append' in encoded) {
          appendPending(encoded.spec, encoded.append, encoded.lines)
          continue
        }
        const { write: w, spec, doc, views } = encoded
        // In place only forward: a document never goes back to an older revision.
        if (w.replaces && w.replaces.revision < w.revision) {
          const { revision, changedFields } = w.replaces
          const changed = changedFields.map((f) => w.fields[f] ?? null)
          const updated = sql.update(spec, changedFields).run(w.revision, doc, ...changed, ...views, w.key, revision)
          // Not at that revision any more (or gone): the upsert below writes it all, if newer.
          if (updated.changes > 0) continue
        }
        sql
          .upsert(spec)
          .run(
            w.accountId,
            w.id,
            w.key,
            w.revision,
            doc,
            ...Object.keys(spec.fields).map((f) => w.fields[f] ?? null),
            ...views,
          )
      }
      for (const projection of projections) {
        const current = checkpoints.of.get(projection)
        if (!current || BigInt(current.position) < checkpoint) checkpoints.save.run(projection, checkpoint.toString())
      }
    },
  )
  /**
   * Events added to a stored document's pending lines, its views dropped
   * (they are rendered again when idle), if it is still at the revision the
   * projection read: it is the only writer of its documents, so a document
   * that moved means a bug, and the whole commit is refused.
   */
  const appendPending = (spec: CollectionSpec, append: DocumentAppend, lines: string) => {
    if (append.creates) {
      // A new document is its events: `null` until a read or the views' filling folds them.
      const { accountId, id, fields } = append.creates
      sql
        .createdPending(spec)
        .run(
          accountId,
          id,
          append.key,
          append.revision,
          lines,
          append.events.length,
          ...Object.keys(spec.fields).map((f) => fields[f] ?? null),
        )
      return
    }
    const appended = sql.appended(spec).run(append.revision, lines, append.events.length, append.key, append.after)
    if (appended.changes !== 1) throw new Error(`${append.key} is no longer at revision ${append.after}`)
  }
  return {
    async fillViews(collection, views) {
      const spec = specOf(collection)
      // Encoded before the write lock is taken, as a commit's documents are.
      return fillViews.immediate(
        spec,
        views.map((item) => ({
          key: item.key,
          revision: item.revision,
          views: encodeViews(spec, item.views),
          folded: item.folded === undefined ? undefined : encode(spec, JSON.stringify(item.folded)),
        })),
      )
    },
    async commit(projections, writes, checkpoint) {
      // Serialised and compressed before the write lock is taken: another
      // writer of the file (a rebuild's other part, the live projector) waits
      // only for the rows.
      commit.immediate(projections, writes.map(encodeWrite), checkpoint)
    },
  }
}
