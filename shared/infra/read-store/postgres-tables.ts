import type pg from 'pg'
import { queryIndexes, retiredIndexes, viewColumns } from './sql-tables.ts'
import type { CollectionSpec } from './port.ts'

/* The PostgreSQL read store's tables: a column per field and view, and the indexes its queries use. */

const NAME = /^[a-z][a-z0-9_]*$/

/** Each indexed field's column and its type. */
export const fieldColumnsOf = (spec: CollectionSpec) =>
  Object.entries(spec.fields).map(([f, t]): [string, string] => [`f_${f}`, t === 'integer' ? 'bigint' : 'text'])

/** A column's type as its table declares it: text compares byte by byte (`"C"`), as on SQLite. */
const declared = (type: string) => (type === 'text' ? 'text COLLATE "C"' : type)

export const fieldColumn = (spec: CollectionSpec, field: string) => {
  if (!(field in spec.fields)) throw new Error(`${field} is not an indexed field of ${spec.name}`)
  return `f_${field}`
}

/** A collection's table, made if missing, with a column per field and view (one added later is added). */
export function tableStatements(spec: CollectionSpec): string[] {
  for (const name of [spec.name, ...Object.keys(spec.fields), ...(spec.views ?? [])]) {
    if (!NAME.test(name)) throw new Error(`invalid collection, field or view name ${name}`)
  }
  const fields = fieldColumnsOf(spec).map(([column, type]) => `, ${column} ${declared(type)}`)
  return [
    `CREATE TABLE IF NOT EXISTS ${spec.name} (
      account_id bigint  NOT NULL,
      id         bigint  NOT NULL,
      key        text    COLLATE "C" NOT NULL UNIQUE,
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
 * A collection's query indexes; a rebuild's shadow gets them once filled.
 * Index names carry a generation: a shadow renamed into place keeps its
 * indexes' names, which the next shadow's must not meet.
 */
export async function createIndexes(db: pg.Pool | pg.ClientBase, spec: CollectionSpec) {
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
