import pg from 'pg'

/*
 * What the PostgreSQL adapters share: a pool in the schema the connection
 * string names (`?schema=`, else `public`), transactions, and the set-up of
 * their tables, which several processes starting at once run one at a time.
 */

/**
 * Every connection's settings. Without statistics (a young table) the planner
 * can cost a read of a few hundred streams above `jit_above_cost`, and
 * compiling it took three times as long as running it.
 */
const CONNECTION_SETTINGS = ['jit=off']

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
  options: {
    max: number
    schema?: string
    types?: pg.CustomTypesConfig
    setup: string[]
    /** Settings of the pool's connections beside the search path (`name=value`). */
    settings?: readonly string[]
  },
): Promise<Postgres> {
  const parsed = new URL(url)
  const schema = options.schema ?? parsed.searchParams.get('schema') ?? 'public'
  parsed.searchParams.delete('schema')
  const connection: pg.ClientConfig = {
    connectionString: parsed.toString(),
    options: [`search_path=${pg.escapeIdentifier(schema)}`, ...CONNECTION_SETTINGS, ...(options.settings ?? [])]
      .map((setting) => `-c ${setting}`)
      .join(' '),
    connectionTimeoutMillis: 10_000,
  }
  const pool = new pg.Pool({ ...connection, max: options.max, types: options.types })
  // An idle client whose server went away is dropped by the pool; its error must not end the process.
  pool.on('error', () => {})
  // A query or connection the server is not there for is told apart, to be answered 503, not 500.
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<pg.QueryResult>
  pool.query = ((...args: unknown[]) => query(...args).catch(markUnavailable)) as typeof pool.query
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined
  // With a callback (pool.query's own use) it is left as it is; its errors reach pool.query's.
  pool.connect = ((...args: unknown[]) =>
    args.length > 0 ? connect(...args) : connect()!.catch(markUnavailable)) as typeof pool.connect
  const transaction = async <T>(work: (client: pg.PoolClient) => Promise<T>) => {
    const client = await pool.connect()
    // A connection lost mid-transaction is told to the query that waits on it; the event itself must not end the process.
    const ignore = () => {}
    client.on('error', ignore)
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      return markUnavailable(error)
    } finally {
      client.off('error', ignore)
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

/** Error codes of a server that is gone, refusing connections, or shutting down. */
const unreachable = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])

/**
 * Rethrows `error`, marked `storeUnavailable` when it says the database is not
 * there (a refused or lost connection, a server shutting down: SQLSTATE
 * classes 08 and 57P), so the API answers 503 with Retry-After, not 500.
 */
function markUnavailable(error: unknown): never {
  const e = error as { code?: string; message?: string }
  const code = e.code ?? ''
  const gone =
    unreachable.has(code) ||
    code.startsWith('08') ||
    code.startsWith('57P') ||
    /Connection terminated|timeout exceeded when trying to connect/.test(e.message ?? '')
  if (gone && error instanceof Error) Object.assign(error, { storeUnavailable: true })
  throw error
}
