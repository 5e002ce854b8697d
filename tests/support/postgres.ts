import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { Test } from 'tap'

/*
 * The PostgreSQL the tests use: DATABASE_URL, else the local server at
 * 127.0.0.1:5432 when one answers. Each test gets a schema of its own,
 * dropped when it ends, so runs never see each other's data.
 */
export const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** Why the PostgreSQL tests are skipped, or false when a server answers. */
export async function postgresSkip(): Promise<string | false> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2000 })
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

/** A fresh schema for one test, dropped with everything in it at its end. */
export function testSchema(t: Test) {
  const schema = `test_${randomUUID().replaceAll('-', '').slice(0, 16)}`
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: postgresUrl })
    await client.connect()
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`)
    await client.end()
  })
  return schema
}
