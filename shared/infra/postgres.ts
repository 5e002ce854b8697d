import pg from 'pg'

/*
 * What the PostgreSQL adapters share: a pool in the schema the connection
 * string names (`?schema=`, else `public`), transactions, and the set-up of
 * their tables, which several processes starting at once run one at a time.
 */

/** A lock id of the service's own, held while tables are made (`CREATE … IF NOT EXISTS` races otherwise). */
const SETUP_LOCK = 0x5348_4950

export interface Postgres {
  pool: pg.Pool
  schema: string
  /** The connection settings of the pool, for a client of its own (LISTEN). */
  connection: pg.ClientConfig
  /** Runs `work` in a transaction on one client: committed if it returns, rolled back if it throws. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>
}

/**
 * Opens a pool on `url` and runs `setup` (the adapter's tables, made if
 * missing) under a lock every shiplog process takes for it. `schema`
 * overrides the connection string's (tests give each run its own).
 */
export async function openPostgres(
  url: string,
  options: { max: number; schema?: string; types?: pg.CustomTypesConfig; setup: string[] },
): Promise<Postgres> {
  const parsed = new URL(url)
  const schema = options.schema ?? parsed.searchParams.get('schema') ?? 'public'
  parsed.searchParams.delete('schema')
  const connection: pg.ClientConfig = {
    connectionString: parsed.toString(),
    options: `-c search_path=${pg.escapeIdentifier(schema)}`,
    connectionTimeoutMillis: 10_000,
  }
  const pool = new pg.Pool({ ...connection, max: options.max, types: options.types })
  // An idle client whose server went away is dropped by the pool; its error must not end the process.
  pool.on('error', () => {})
  const transaction = async <T>(work: (client: pg.PoolClient) => Promise<T>) => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }
  try {
    await transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK])
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`)
      for (const statement of options.setup) await client.query(statement)
    })
  } catch (error) {
    await pool.end().catch(() => {})
    throw error
  }
  return { pool, schema, connection, transaction }
}

/**
 * Values of several kilobytes are compressed by the server (TOAST): with LZ4
 * where it has it (PostgreSQL 14 built with it), faster than its default
 * pglz; where it does not, the change is refused and pglz stays.
 */
export async function preferLz4(pool: pg.Pool, table: string, columns: readonly string[]) {
  for (const column of columns)
    await pool.query(`ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4`).catch(() => {})
}
