import pg from 'pg'
import { openPostgres, preferLz4 } from '../postgres.ts'
import { viewColumns } from './sql-tables.ts'
import { checkViewNames, collectionSpecs, shadowOf, type CollectionSpec, type ReadStore } from './port.ts'
import { createIndexes, tableStatements } from './postgres-tables.ts'
import { postgresReads } from './postgres-reads.ts'
import { appendPending, type Column, type NewDocuments, rowsOf, runsOf, upsert } from './postgres-writes.ts'

/*
 * The read store on PostgreSQL: a table per collection, each document in a
 * `json` column (its text as written: its keys keep the order every store
 * serves them in, which `jsonb` would sort) beside its indexed fields
 * (`f_<field>`) and its views as JSON text (`v_<view>`, sent as stored, byte
 * for byte). Every query index starts with the account id and ends with the
 * id, so a filtered page is one index range scan in id order, as on SQLite. PostgreSQL compresses large
 * values itself (TOAST), so `compressed` collections need nothing more. A
 * collection with `pending` keeps the events appended to a document as text
 * beside it (`pending`, one JSON line an event, and `pending_count`), folded
 * by every read, as on SQLite.
 */

/**
 * The class of the locks a write to the read models holds until it commits,
 * one per collection it writes: writers of a collection (the projector, a
 * command catching up before it answers, a rebuild's threads) take turns, as
 * on SQLite, so two never insert the same new document at once, while
 * writers of different collections (the projector's lanes) do not wait.
 */
const WRITER_LOCK = 0x5348_5752
/** Takes the writer locks of the collections, in one order for every writer, so two never deadlock. */
const lockCollections = (client: pg.ClientBase, names: readonly string[]) =>
  client.query('SELECT pg_advisory_xact_lock($1, hashtext(c)) FROM unnest($2::text[]) AS c ORDER BY hashtext(c), c', [
    WRITER_LOCK,
    [...new Set(names)],
  ])
/** PostgreSQL's SQLSTATE for a row a unique index already holds. */
const UNIQUE_VIOLATION = '23505'
/**
 * After a commit met a document it believed new, this long every commit
 * writes checked: a replay (a rebuild catching up, a writer catching up
 * beside the projector) meets stored documents batch after batch.
 */
const CHECKED_AFTER_A_REPLAY_MS = 60_000
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
    // A commit answers before its WAL reaches the disk: a crash of the server
    // can lose the last commits, but never half of one, and their checkpoint
    // goes with them, so the projector applies those events again from the log.
    settings: ['synchronous_commit=off'],
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
  /** Until when a commit writes every document checked: a replay met a stored one lately. */
  let checkedUntil = 0
  const write = (
    projections: readonly string[],
    writes: Parameters<ReadStore['commit']>[1],
    checkpoint: bigint,
    newDocuments: NewDocuments,
  ) =>
    inTransaction(async (client) => {
      await lockCollections(
        client,
        writes.map((w) => specOf(w.collection).name),
      )
      for (const run of runsOf(writes)) {
        const spec = specOf(run.collection)
        if (run.appends) await appendPending(client, spec, run.appends, newDocuments)
        else await upsert(client, spec, run.writes, newDocuments)
      }
      // Every projection's checkpoint in one statement: a round trip each was a sixth of a commit's time.
      if (projections.length > 0)
        await client.query(
          `INSERT INTO checkpoints (projection, position) SELECT unnest($1::text[]), $2
           ON CONFLICT (projection) DO UPDATE SET position = excluded.position
           WHERE checkpoints.position::numeric < excluded.position::numeric`,
          [projections, checkpoint.toString()],
        )
    })
  const checkpointOf = async (client: pg.ClientBase | pg.Pool, projection: string) => {
    const { rows } = await client.query('SELECT position FROM checkpoints WHERE projection = $1', [projection])
    return rows[0] ? BigInt((rows[0] as { position: string }).position) : undefined
  }

  return {
    kind: 'postgres',
    concurrentCommits: true,
    ...postgresReads(pool, specOf),
    async fillViews(collection, views) {
      const spec = specOf(collection)
      const columns = viewColumns(spec)
      if (views.length === 0 || columns.length === 0) return 0
      const { source, params } = rowsOf(
        [['key', 'text'], ['revision', 'int'], ['folded', 'json'], ...columns.map((c): Column => [c, 'text'])],
        views.map((item) => {
          checkViewNames(spec, item.views)
          return [
            item.key,
            item.revision,
            item.folded === undefined || item.folded === null ? null : JSON.stringify(item.folded),
            ...(spec.views ?? []).map((v) => item.views[v]),
          ]
        }),
      )
      // A document read with pending events is stored folded with its views: its readers fold them no more.
      const folded = spec.pending
        ? `, doc = CASE WHEN r.folded IS NULL THEN t.doc ELSE r.folded END,
           pending = CASE WHEN r.folded IS NULL THEN t.pending END,
           pending_count = CASE WHEN r.folded IS NULL THEN t.pending_count ELSE 0 END`
        : ''
      return inTransaction(async (client) => {
        await lockCollections(client, [spec.name])
        const { rowCount } = await client.query(
          `UPDATE ${spec.name} t SET ${columns.map((c) => `${c} = r.${c}`).join(', ')}${folded}
             FROM ${source} WHERE t.key = r.key AND t.revision = r.revision`,
          params,
        )
        return rowCount ?? 0
      })
    },
    async commit(projections, writes, checkpoint) {
      if (Date.now() < checkedUntil) return write(projections, writes, checkpoint, 'checked')
      try {
        await write(projections, writes, checkpoint, 'inserted')
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error
        // A document believed new was stored already: a replay, whose next commits will meet more.
        checkedUntil = Date.now() + CHECKED_AFTER_A_REPLAY_MS
        await write(projections, writes, checkpoint, 'checked')
      }
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
