import pg from 'pg'
import { openPostgres, preferLz4 } from '../postgres.ts'
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
  type DocumentWrite,
  type FindQuery,
  isAppend,
  type ReadStore,
  type StoredDocument,
} from './port.ts'

/*
 * The read store on PostgreSQL: a table per collection, each document in a
 * `json` column (its text as written: its keys keep the order every store
 * serves them in, which `jsonb` would sort) beside its indexed fields
 * (`f_<field>`) and its views as JSON text (`v_<view>`, sent as stored, byte
 * for byte). Every query index
 * starts with the account id and ends with the id, so a filtered page is one
 * index range scan in id order, as on SQLite. PostgreSQL compresses large
 * values itself (TOAST), so `compressed` collections need nothing more. A
 * collection with `pending` keeps the events appended to a document as text
 * beside it (`pending`, one JSON line an event, and `pending_count`), folded
 * by every read, as on SQLite.
 */

const NAME = /^[a-z][a-z0-9_]*$/

/**
 * Held by every write to the read models until it commits: writers (the
 * projector, a command catching up before it answers, a rebuild's threads)
 * take turns, as on SQLite, so two never insert the same new document at once.
 */
const WRITER_LOCK = 0x5348_5752
const operators = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

interface Row {
  account_id: number
  id: number
  key: string
  revision: number
  doc: unknown
  /** A collection with `pending`: the events appended since the document was written. */
  pending?: string | null
}

/** A stored row as its document, with the events pending on it folded in. */
const toStored = <D>(spec: CollectionSpec, r: Row): StoredDocument<D> =>
  withPending<D>(
    spec,
    { accountId: r.account_id, id: r.id, key: r.key, revision: r.revision, doc: r.doc as D },
    r.pending,
  )

/** Each indexed field's column and its type. */
const fieldColumnsOf = (spec: CollectionSpec) =>
  Object.entries(spec.fields).map(([f, t]): [string, string] => [`f_${f}`, t === 'integer' ? 'bigint' : 'text'])

const fieldColumn = (spec: CollectionSpec, field: string) => {
  if (!(field in spec.fields)) throw new Error(`${field} is not an indexed field of ${spec.name}`)
  return `f_${field}`
}

/** Ids are 53-bit by design: bigint columns read back as numbers; checkpoints are kept as text. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? Number
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

/** Opens the store on `url` (postgres://…), in the schema it names (see openPostgres) or `schema`. */
export async function createPostgresReadStore(
  url: string,
  collections: readonly CollectionSpec[],
  schema?: string,
): Promise<ReadStore> {
  const { pool, transaction: inTransaction } = await openPostgres(url, {
    max: 8,
    schema,
    types,
    setup: [
      'CREATE TABLE IF NOT EXISTS checkpoints (projection text PRIMARY KEY, position text NOT NULL)',
      ...collections.flatMap((spec) => tableStatements(spec)),
    ],
  })
  for (const spec of collections) {
    await createIndexes(pool, spec)
    await preferLz4(pool, spec.name, ['doc', ...viewColumns(spec)])
  }
  const { specOf, joinShadow } = collectionSpecs(collections)
  const rows = async (sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as Row[]
  /** The documents a query selects, given the columns to read, with their pending events folded in. */
  const documents = async <D>(spec: CollectionSpec, sql: (columns: string) => string, params: unknown[]) =>
    (await rows(sql(documentColumnsOf(spec)), params)).map((r) => toStored<D>(spec, r))
  const checkpointOf = async (client: pg.ClientBase | pg.Pool, projection: string) => {
    const { rows } = await client.query('SELECT position FROM checkpoints WHERE projection = $1', [projection])
    return rows[0] ? BigInt((rows[0] as { position: string }).position) : undefined
  }

  return {
    kind: 'postgres',
    async get<D>(collection: string, accountId: number, id: number) {
      const spec = specOf(collection)
      const [found] = await documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE account_id = $1 AND id = $2`,
        [accountId, id],
      )
      return found
    },
    async getByKey<D>(collection: string, key: string) {
      const spec = specOf(collection)
      const [found] = await documents<D>(spec, (columns) => `SELECT ${columns} FROM ${spec.name} WHERE key = $1`, [key])
      return found
    },
    async getManyByKey<D>(collection: string, keys: readonly string[]) {
      const spec = specOf(collection)
      const found = await documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE key = ANY($1::text[])`,
        [keys],
      )
      return new Map(found.map((d) => [d.key, d]))
    },
    async lookup<D>(collection: string, field: string, value: string) {
      const spec = specOf(collection)
      const [found] = await documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE ${fieldColumn(spec, field)} = $1 LIMIT 1`,
        [value],
      )
      return found
    },
    async lookupAll<D>(collection: string, field: string, value: string, limit: number) {
      const spec = specOf(collection)
      return documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE ${fieldColumn(spec, field)} = $1 LIMIT $2`,
        [value, limit],
      )
    },
    async lookupDue<D>(collection: string, field: string, upTo: number, limit: number) {
      const spec = specOf(collection)
      const column = fieldColumn(spec, field)
      return documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE ${column} <= $1 ORDER BY ${column} LIMIT $2`,
        [upTo, limit],
      )
    },
    async keysByField(collection, accountId, field, values) {
      const spec = specOf(collection)
      const column = fieldColumn(spec, field)
      const { rows: found } = await pool.query(
        `SELECT ${column} AS value, key FROM ${spec.name} WHERE account_id = $1 AND ${column} = ANY($2::text[])`,
        [accountId, values],
      )
      return groupKeys(found as { value: string; key: string }[])
    },
    async find<D>(collection: string, query: FindQuery) {
      const spec = specOf(collection)
      const page = await pageRows<Row>(pool, spec, query, documentColumnsOf(spec))
      return { docs: page.rows.map((r) => toStored<D>(spec, r)), hasMore: page.hasMore }
    },
    async findView(collection, query, view) {
      const spec = specOf(collection)
      if (!spec.views?.includes(view)) throw new Error(`${view} is not a view of ${collection}`)
      const page = await pageRows<{ id: number; v: string | null }>(pool, spec, query, `id, v_${view} AS v`)
      return {
        views: page.rows.map((r) => (r.v === null ? null : viewBytesOf(Buffer.from(r.v)))),
        ids: page.rows.map((r) => r.id),
        hasMore: page.hasMore,
      }
    },
    async missingViews<D>(collection: string, limit: number) {
      const spec = specOf(collection)
      const marker = missingViewColumn(spec)
      if (!marker) throw new Error(`${collection} does not fill its views when idle`)
      return documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE ${marker} IS NULL ORDER BY id DESC LIMIT $1`,
        [limit],
      )
    },
    async pendingOf(collection: string, keys: readonly string[]) {
      const spec = specOf(collection)
      if (!spec.pending) throw new Error(`${collection} keeps no pending events`)
      const { rows: found } = await pool.query(
        `SELECT key, revision, pending_count AS pending FROM ${spec.name} WHERE key = ANY($1::text[])`,
        [keys],
      )
      return new Map(
        (found as { key: string; revision: number; pending: number }[]).map((r) => [
          r.key,
          { revision: r.revision, pending: r.pending },
        ]),
      )
    },
    async fillViews(collection, views) {
      const spec = specOf(collection)
      const columns = viewColumns(spec)
      if (views.length === 0 || columns.length === 0) return 0
      const rows = views.map((item) => {
        const row: Record<string, unknown> = { key: item.key, revision: item.revision }
        for (const v of spec.views ?? []) row[`v_${v}`] = item.views[v] ?? null
        if (item.folded !== undefined) row.folded = item.folded
        return row
      })
      // A document read with pending events is stored folded with its views: its readers fold them no more.
      const folded = spec.pending
        ? `, doc = CASE WHEN v.folded IS NULL THEN t.doc ELSE v.folded END,
           pending = CASE WHEN v.folded IS NULL THEN t.pending END,
           pending_count = CASE WHEN v.folded IS NULL THEN t.pending_count ELSE 0 END`
        : ''
      return inTransaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [WRITER_LOCK])
        const { rowCount } = await client.query(
          `UPDATE ${spec.name} t SET ${columns.map((c) => `${c} = v.${c}`).join(', ')}${folded}
             FROM json_to_recordset($1::json)
               AS v(key text, revision int, folded json, ${columns.map((c) => `${c} text`).join(', ')})
            WHERE t.key = v.key AND t.revision = v.revision`,
          [JSON.stringify(rows)],
        )
        return rowCount ?? 0
      })
    },
    async commit(projections, writes, checkpoint) {
      await inTransaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [WRITER_LOCK])
        for (const run of runsOf(writes)) {
          const spec = specOf(run.collection)
          if (run.appends) await appendPending(client, spec, run.appends)
          else await upsert(client, spec, run.writes)
        }
        for (const projection of projections) {
          await client.query(
            `INSERT INTO checkpoints (projection, position) VALUES ($1, $2)
             ON CONFLICT (projection) DO UPDATE SET position = excluded.position
             WHERE checkpoints.position::numeric < excluded.position::numeric`,
            [projection, checkpoint.toString()],
          )
        }
      })
    },
    checkpoint: (projection) => checkpointOf(pool, projection),
    async prepareRebuild(collection, shadowProjection) {
      const shadow = shadowOf(specOf(collection))
      await inTransaction(async (client) => {
        await client.query(`DROP TABLE IF EXISTS ${shadow.name}`)
        for (const statement of tableStatements(shadow)) await client.query(statement)
        await client.query('DELETE FROM checkpoints WHERE projection = $1', [shadowProjection])
      })
      await preferLz4(pool, shadow.name, ['doc', ...viewColumns(shadow)])
      return joinShadow(collection)
    },
    async indexRebuild(collection) {
      await createIndexes(pool, shadowOf(specOf(collection)))
    },
    async completeRebuild(collection, projection, shadowProjection) {
      const spec = specOf(collection)
      return inTransaction(async (client) => {
        // The live table locked first: a projector's commit in flight finishes, the next waits for the swap.
        await client.query(`LOCK TABLE ${spec.name} IN ACCESS EXCLUSIVE MODE`)
        const live = (await checkpointOf(client, projection)) ?? 0n
        const rebuilt = (await checkpointOf(client, shadowProjection)) ?? -1n
        if (rebuilt < live) return false
        await client.query(`DROP TABLE ${spec.name}`)
        await client.query(`ALTER TABLE ${shadowOf(spec).name} RENAME TO ${spec.name}`)
        await client.query(
          `INSERT INTO checkpoints (projection, position) VALUES ($1, $2)
           ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
          [projection, rebuilt.toString()],
        )
        await client.query('DELETE FROM checkpoints WHERE projection = $1', [shadowProjection])
        return true
      })
    },
    joinRebuild: joinShadow,
    async reset(collection, projection) {
      await inTransaction(async (client) => {
        await client.query(`DELETE FROM ${specOf(collection).name}`)
        await client.query('DELETE FROM checkpoints WHERE projection = $1', [projection])
      })
    },
    async close() {
      await pool.end()
    },
  }
}

/** A collection's table, made if missing, with a column per field and view (one added later is added). */
function tableStatements(spec: CollectionSpec): string[] {
  for (const name of [spec.name, ...Object.keys(spec.fields), ...(spec.views ?? [])]) {
    if (!NAME.test(name)) throw new Error(`invalid collection, field or view name ${name}`)
  }
  const fields = fieldColumnsOf(spec).map(([column, type]) => `, ${column} ${type}`)
  return [
    `CREATE TABLE IF NOT EXISTS ${spec.name} (
      account_id bigint  NOT NULL,
      id         bigint  NOT NULL,
      key        text    NOT NULL UNIQUE,
      revision   integer NOT NULL,
      doc        json    NOT NULL${spec.pending ? `,\n      ${PENDING_COLUMNS}` : ''}${fields.join('')}
    )`,
    // A table made with a jsonb document (which sorts keys) takes json; its documents keep the sorted order until rewritten.
    `DO $$ BEGIN
       IF (SELECT data_type FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = '${spec.name}' AND column_name = 'doc') = 'jsonb'
       THEN ALTER TABLE ${spec.name} ALTER COLUMN doc TYPE json USING doc::json;
       END IF;
     END $$`,
    // A field or view added after the table was made becomes a new column, filled as documents are next written.
    ...fieldColumnsOf(spec).map(
      ([column, type]) => `ALTER TABLE ${spec.name} ADD COLUMN IF NOT EXISTS ${column} ${type}`,
    ),
    ...viewColumns(spec).map((view) => `ALTER TABLE ${spec.name} ADD COLUMN IF NOT EXISTS ${view} text`),
    ...(spec.pending
      ? PENDING_COLUMNS.split(', ').map((column) => `ALTER TABLE ${spec.name} ADD COLUMN IF NOT EXISTS ${column}`)
      : []),
  ]
}

/** A collection with `pending`: its events appended since the document was written whole, and how many. */
const PENDING_COLUMNS = 'pending text, pending_count integer NOT NULL DEFAULT 0'

/**
 * A commit's writes as statements: each collection's consecutive whole
 * documents in one, its consecutive appends in another. A collection's whole
 * documents go before its appends, unless a document of it is both written
 * whole and appended to: then they keep the order given.
 */
function runsOf(writes: readonly (DocumentWrite | DocumentAppend)[]) {
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
 * A collection's query indexes; a rebuild's shadow gets them once filled.
 * Index names carry a generation: a shadow renamed into place keeps its
 * indexes' names, which the next shadow's must not meet.
 */
async function createIndexes(db: pg.Pool | pg.ClientBase, spec: CollectionSpec) {
  const { rows } = await db.query(
    'SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1',
    [spec.name],
  )
  const existing = (rows as { indexname: string }[]).map((r) => r.indexname)
  const generation = Date.now().toString(36)
  const ensureIndex = async (suffix: string, definition: string) => {
    if (!existing.some((name) => name.endsWith(suffix)))
      await db.query(`CREATE ${definition.replace('INDEX', `INDEX IF NOT EXISTS ${spec.name}_${generation}${suffix}`)}`)
  }
  for (const name of retiredIndexes(spec, existing)) await db.query(`DROP INDEX IF EXISTS ${name}`)
  for (const [suffix, definition] of queryIndexes(spec)) await ensureIndex(suffix, definition)
}

/**
 * A collection's share of a commit in one statement: each document replaces
 * the stored one only at a newer revision (a write built on an older state
 * is never applied over a newer one). A key written twice in one commit is
 * written once, at its highest revision, as one after the other would leave it.
 */
async function upsert(client: pg.ClientBase, spec: CollectionSpec, writes: readonly DocumentWrite[]) {
  const latest = new Map<string, DocumentWrite>()
  for (const w of writes) {
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
async function appendPending(client: pg.ClientBase, spec: CollectionSpec, appends: readonly DocumentAppend[]) {
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

/**
 * A page in descending id order (ascending from a `startingAfter` cursor,
 * then flipped), one more row than asked to tell whether there is more.
 */
async function pageRows<R>(pool: pg.Pool, spec: CollectionSpec, query: FindQuery, select: string) {
  const params: unknown[] = [query.accountId]
  const clauses = ['account_id = $1']
  const param = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  for (const c of query.where ?? []) clauses.push(`${fieldColumn(spec, c.field)} ${operators[c.op]} ${param(c.value)}`)
  if (query.startingAfter !== undefined) clauses.push(`id > ${param(query.startingAfter)}`)
  if (query.endingBefore !== undefined) clauses.push(`id < ${param(query.endingBefore)}`)
  const forward = query.startingAfter !== undefined && query.endingBefore === undefined
  const order = forward ? 'ASC' : 'DESC'
  const { rows } = await pool.query(
    `SELECT ${select} FROM ${spec.name} WHERE ${clauses.join(' AND ')} ORDER BY id ${order} LIMIT ${param(query.limit + 1)}`,
    params,
  )
  const page = (rows as R[]).slice(0, query.limit)
  return { rows: forward ? page.reverse() : page, hasMore: rows.length > query.limit }
}
