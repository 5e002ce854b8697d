import { randomUUID } from 'node:crypto'
import pg from 'pg'

/*
 * The PostgreSQL the tests use: DATABASE_URL, else the local server at
 * 127.0.0.1:5432 when one answers. Each test gets a schema of its own,
 * dropped when its test file has run, so runs never see each other's data.
 */
export const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/**
 * Why the PostgreSQL tests are skipped, or false when a server answers. A
 * port nobody listens on is refused at once; a server that is there but slow
 * to answer (a machine loaded by the rest of the suite) is waited for.
 */
export async function postgresSkip(): Promise<string | false> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 15_000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return false
  } catch (error) {
    return `no PostgreSQL answers at ${postgresUrl.replace(/\/\/[^@]*@/, '//')} (${(error as Error).message}): set DATABASE_URL`
  } finally {
    await client.end().catch(() => {})
  }
}

/** Schemas this test process made: dropped when it is done, after every store and server that used them. */
const made: string[] = []
async function dropSchemas() {
  if (made.length === 0) return
  const client = new pg.Client({ connectionString: postgresUrl })
  client.on('error', () => {})
  await client.connect()
  for (const schema of made.splice(0))
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`)
  await client.end()
}

/** A fresh schema for one test, dropped with everything in it once the test file has run. */
export function testSchema() {
  const schema = `test_${randomUUID().replaceAll('-', '').slice(0, 16)}`
  if (made.length === 0) process.once('beforeExit', () => void dropSchemas().catch(() => {}))
  made.push(schema)
  return schema
}

/**
 * With DATABASE_URL set, the whole suite runs on PostgreSQL: each test
 * server and service process gets the stores of a schema of its own (and the
 * key every process must share). Unset, nothing: the embedded stores.
 */
export function storesOnPostgres(): Record<string, string> {
  if (!process.env.DATABASE_URL) return {}
  const url = new URL(process.env.DATABASE_URL)
  url.searchParams.set('schema', testSchema())
  return {
    DATABASE_URL: url.toString(),
    SHIPLOG_SECRET_KEY: process.env.SHIPLOG_SECRET_KEY ?? '0'.repeat(64),
  }
}
