import type pg from 'pg'
import t from 'tap'
import { openPostgres } from '../../shared/infra/postgres.ts'
import { postgresSkip, postgresUrl, testSchema } from '../support/postgres.ts'

/*
 * The connections the PostgreSQL adapters open: in their schema, with JIT
 * compilation off in every one (it cost a young log's stream reads three
 * times their running time), and with the settings an adapter adds.
 */
t.test(
  'postgres connections: JIT off in each, in the schema, with the settings asked',
  { skip: await postgresSkip() },
  async (t) => {
    const schema = testSchema()
    const plain = await openPostgres(postgresUrl, { max: 2, schema, setup: [] })
    const tuned = await openPostgres(postgresUrl, { max: 2, schema, setup: [], settings: ['synchronous_commit=off'] })
    t.teardown(() => Promise.all([plain.pool.end(), tuned.pool.end()]))
    const show = async (db: pg.Pool | pg.ClientBase, setting: string) =>
      ((await db.query('SELECT current_setting($1) AS value', [setting])).rows[0] as { value: string }).value

    t.equal(await show(plain.pool, 'jit'), 'off', 'JIT is off')
    t.equal(await show(plain.pool, 'synchronous_commit'), 'on', 'commits wait for the disk unless asked otherwise')
    t.equal(await show(plain.pool, 'search_path'), `"${schema}"`, 'in its schema')
    t.equal(await show(tuned.pool, 'jit'), 'off', 'JIT is off beside the settings asked')
    t.equal(await show(tuned.pool, 'synchronous_commit'), 'off', 'a setting asked is set')
    await tuned.transaction(async (client) =>
      t.equal(await show(client, 'synchronous_commit'), 'off', 'in a transaction too'),
    )
  },
)
