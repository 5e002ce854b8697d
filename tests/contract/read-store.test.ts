import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import t, { type Test } from 'tap'
import { createMongoReadStore } from '../../shared/infra/read-store/mongodb.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { createPostgresReadStore } from '../../shared/infra/read-store/postgres.ts'
import { allCollections } from '../../shared/infra/read-store/collections.ts'
import { lookupWhere } from '../../shared/infra/read-store/sql-tables.ts'
import type { CollectionSpec, ReadStore } from '../../shared/infra/read-store/port.ts'
import { postgresSkip, postgresUrl, testSchema } from '../support/postgres.ts'
import { tempDir } from '../support/temp.ts'
import {
  contractCollection,
  contractCollections,
  contractPending,
  readStoreContract,
  textOfView,
} from './read-store.contract.ts'

t.test('sqlite read store', async (t) => {
  const file = join(tempDir(t, 'shiplog-rs-'), 'read.db')
  readStoreContract(t, async () => createSqliteReadStore(file, contractCollections))
})

/** A table made before its collection kept pending events takes them from then on, its documents as they were. */
async function tableMadeBeforePending(t: Test, open: (collections: CollectionSpec[]) => Promise<ReadStore>) {
  const before = { ...contractPending, pending: undefined }
  const old = await open([before])
  await old.commit(
    ['contract'],
    [{ collection: before.name, key: 'k', accountId: 1, id: 1, revision: 0, doc: { id: 1, sum: 1 }, fields: {} }],
    1n,
  )
  await old.close()
  // Given the same store opened with the collection keeping pending events
  const now = await open([contractPending])
  t.teardown(() => now.close())
  // When events are appended to the document written before, then reads fold them
  t.same(Object.fromEntries(await now.pendingOf!(before.name, ['k'])), { k: { revision: 0, pending: 0 } })
  await now.commit(
    ['contract'],
    [
      {
        collection: before.name,
        key: 'k',
        after: 0,
        revision: 1,
        events: [{ type: 'Added', revision: 1, data: { n: 2 } }],
      },
    ],
    2n,
  )
  t.match(await now.getByKey(before.name, 'k'), { revision: 1, doc: { id: 1, sum: 3 }, pending: 1 })
}

t.test('sqlite: every lookup across accounts (an API key, a sweep) is by an index of its own', async (t) => {
  const file = join(tempDir(t, 'shiplog-rs-'), 'read.db')
  await createSqliteReadStore(file, allCollections).close()
  const db = new Database(file, { readonly: true })
  t.teardown(() => db.close())
  t.ok(
    allCollections.find((c) => c.name === 'accounts')?.lookupFields?.includes('private_key_hash'),
    'an API key is looked up across accounts',
  )
  for (const spec of allCollections)
    for (const field of spec.lookupFields ?? []) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN SELECT doc FROM ${spec.name} WHERE f_${field} = ? LIMIT 1`)
        .all('v') as { detail: string }[]
      t.match(
        plan.map((step) => step.detail).join('; '),
        new RegExp(`^SEARCH ${spec.name} USING (COVERING )?INDEX \\S+_across_${field} `),
        `${spec.name}.${field}`,
      )
    }
  // The sweeps read what is still waiting: the e-mails, texts, webhook messages and store updates.
  const swept = allCollections.flatMap((spec) =>
    Object.entries(spec.sweptValues ?? {}).map(([field, value]) => ({ spec, field, value })),
  )
  t.same(swept.map(({ spec, field, value }) => `${spec.name}.${field}=${value}`).sort(), [
    'notifications.email_status=built',
    'sms_payloads.status=built',
    'store_updates.state=pending',
    'webhook_deliveries.status=pending',
  ])
  for (const { spec, field, value } of swept) {
    const { condition, values } = lookupWhere(spec, field, value, '?')
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT doc FROM ${spec.name} WHERE ${condition} LIMIT ?`)
      .all(...values, 10) as { detail: string }[]
    t.match(
      plan.map((step) => step.detail).join('; '),
      new RegExp(`^SEARCH ${spec.name} USING INDEX \\S+_swept_${field}_${value} `),
      `${spec.name}.${field} = '${value}'`,
    )
  }
})

t.test('sqlite: a table made before its collection kept pending events takes them from then on', async (t) => {
  const file = join(tempDir(t, 'shiplog-rs-'), 'read.db')
  await tableMadeBeforePending(t, async (collections) => createSqliteReadStore(file, collections))
})

t.test('sqlite: a collection that becomes compressed still reads the rows written before', async (t) => {
  const file = join(tempDir(t, 'shiplog-rs-'), 'read.db')
  const write = (id: number) => ({
    collection: contractCollection.name,
    key: `doc-${id}`,
    accountId: 1,
    id,
    revision: 0,
    doc: { id, city: 'Zürich' },
    fields: { email: null, created_at: null },
    views: { card: `{"card":"n°${id}"}` },
  })
  const before = createSqliteReadStore(file, [contractCollection])
  await before.commit(['contract'], [write(1)], 1n)
  await before.close()
  const after = createSqliteReadStore(file, [{ ...contractCollection, compressed: true }])
  await after.commit(['contract'], [write(2)], 2n)
  t.same(
    (await after.find(contractCollection.name, { accountId: 1, limit: 5 })).docs.map((d) => d.doc),
    [2, 1].map((id) => ({ id, city: 'Zürich' })),
  )
  const page = await after.findView(contractCollection.name, { accountId: 1, limit: 5 }, 'card')
  t.same(page.views.map(textOfView), ['{"card":"n°2"}', '{"card":"n°1"}'])
  await after.close()
  const db = new Database(file, { readonly: true })
  t.same(
    db
      .prepare(`SELECT id, typeof(doc) AS doc, typeof(v_card) AS card FROM ${contractCollection.name} ORDER BY id`)
      .all(),
    [
      { id: 1, doc: 'text', card: 'text' },
      { id: 2, doc: 'blob', card: 'blob' },
    ],
    'new rows are stored deflated, old ones left as they were',
  )
  db.close()
})

t.test("sqlite: a rebuild's shadow gets its query indexes once filled, and keeps them when swapped in", async (t) => {
  const file = join(tempDir(t, 'shiplog-rs-'), 'read.db')
  const store = createSqliteReadStore(file, [contractCollection])
  t.teardown(() => store.close())
  // A connection of its own each time: a PRAGMA answers from a connection's cached schema.
  const indexes = (table: string) => {
    const db = new Database(file, { readonly: true })
    try {
      return (db.prepare(`PRAGMA index_list(${table})`).all() as { name: string }[])
        .map((i) => i.name.replace(/^.*_(by_\w+)$/, '$1'))
        .filter((name) => name.startsWith('by_'))
        .sort()
    } finally {
      db.close()
    }
  }
  const queryIndexes = ['by_account_id', 'by_created_at_set', 'by_email_set']
  t.same(indexes(contractCollection.name), queryIndexes)
  const shadow = await store.prepareRebuild(contractCollection.name, 'contract-shadow')
  t.same(indexes(shadow), [], 'filled without them')
  await store.indexRebuild(contractCollection.name)
  t.same(indexes(shadow), queryIndexes, 'built once filled')
  await store.commit(['contract-shadow'], [], 1n)
  t.ok(await store.completeRebuild(contractCollection.name, 'contract', 'contract-shadow'))
  t.same(indexes(contractCollection.name), queryIndexes, 'swapped in with them')
})

t.test('sqlite: an index the collection no longer asks for is dropped when the store opens', async (t) => {
  const file = join(tempDir(t, 'shiplog-rs-'), 'read.db')
  const write = (id: number, email: string | null) => ({
    collection: contractCollection.name,
    key: `doc-${id}`,
    accountId: 1,
    id,
    revision: 0,
    doc: { id },
    fields: { email, created_at: id },
  })
  const first = createSqliteReadStore(file, [contractCollection])
  await first.commit(['contract'], [write(1, 'a@example.com'), write(2, null)], 1n)
  await first.close()
  // As a store of an earlier version left it: full indexes by field, and one by a field since dropped.
  const db = new Database(file)
  const table = contractCollection.name
  for (const { name } of db.prepare(`PRAGMA index_list(${table})`).all() as { name: string }[])
    if (name.endsWith('_set')) db.exec(`DROP INDEX ${name}`)
  db.exec(`CREATE INDEX ${table}_old_by_email ON ${table} (account_id, f_email, id)`)
  db.exec(`CREATE INDEX ${table}_old_by_city ON ${table} (account_id, f_email, id)`)
  db.exec(`CREATE INDEX ${table}_operators_own ON ${table} (revision)`)
  db.close()

  const store = createSqliteReadStore(file, [contractCollection])
  t.teardown(() => store.close())
  const check = new Database(file, { readonly: true })
  t.teardown(() => check.close())
  const indexes = check
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`)
    .all(table) as {
    name: string
    sql: string | null
  }[]
  const names = indexes.map((i) => i.name)
  t.notOk(names.includes(`${table}_old_by_email`), 'the full index by a field is replaced')
  t.notOk(names.includes(`${table}_old_by_city`), 'the index by a dropped field is gone')
  t.ok(names.includes(`${table}_operators_own`), 'an index not named as the store names its own is left alone')
  t.match(indexes.find((i) => i.name.endsWith('_by_email_set'))?.sql, /WHERE f_email IS NOT NULL/)
  // Only the documents where the field is set are in its index; a filter finds them through it.
  t.same(
    check
      .prepare(
        `SELECT count(*) AS n FROM ${table} INDEXED BY ${indexes.find((i) => i.name.endsWith('_by_email_set'))!.name} WHERE account_id = 1 AND f_email IS NOT NULL`,
      )
      .get(),
    { n: 1 },
  )
  const found = await store.find(table, {
    accountId: 1,
    where: [{ field: 'email', op: 'eq', value: 'a@example.com' }],
    limit: 5,
  })
  t.same(
    found.docs.map((d) => d.id),
    [1],
  )
})

const url = process.env.MONGODB_URL
t.test(
  'mongodb read store',
  { skip: url ? false : 'MONGODB_URL is not set: no MongoDB server to test against' },
  async (t) => {
    readStoreContract(t, () => createMongoReadStore(url!, contractCollections))
  },
)

t.test('postgres read store', { skip: await postgresSkip() }, async (t) => {
  const schema = testSchema()
  readStoreContract(t, () => createPostgresReadStore(postgresUrl, contractCollections, schema))
})

/** A client on a schema of its own holding every collection's table, empty; and a query's plan as text. */
async function emptyTables(t: Test) {
  const schema = testSchema()
  await (await createPostgresReadStore(postgresUrl, allCollections, schema)).close()
  const client = new pg.Client({ connectionString: postgresUrl, options: `-c search_path=${schema}` })
  await client.connect()
  t.teardown(() => client.end())
  // Empty tables: without this the planner would rightly read them whole.
  await client.query('SET enable_seqscan = off')
  const plan = async (sql: string, params: unknown[] = []) =>
    ((await client.query(`EXPLAIN ${sql}`, params)).rows as { 'QUERY PLAN': string }[])
      .map((r) => r['QUERY PLAN'])
      .join('\n')
  return { client, schema, plan }
}

t.test(
  'postgres: a sweep reads what is still waiting by an index of its own',
  { skip: await postgresSkip() },
  async (t) => {
    const { plan } = await emptyTables(t)
    for (const spec of allCollections)
      for (const [field, value] of Object.entries(spec.sweptValues ?? {})) {
        const { condition } = lookupWhere(spec, field, value, '$1')
        t.match(
          await plan(`SELECT doc FROM ${spec.name} WHERE ${condition} LIMIT 10`),
          new RegExp(`Index Scan (using|on) ${spec.name}_\\w+_swept_${field}_${value}\\b`),
          `${spec.name}.${field} = '${value}'`,
        )
      }
  },
)

t.test(
  'postgres: new tables compare text byte by byte, as SQLite does, and still find it by index',
  { skip: await postgresSkip() },
  async (t) => {
    const { client, schema, plan } = await emptyTables(t)
    const { rows: columns } = await client.query(
      `SELECT table_name, column_name, collation_name FROM information_schema.columns
        WHERE table_schema = $1 AND data_type = 'text' AND (column_name = 'key' OR column_name LIKE 'f\\_%')`,
      [schema],
    )
    t.ok(columns.length > allCollections.length, 'every key, and the text fields')
    t.same(
      (columns as { table_name: string; column_name: string; collation_name: string | null }[]).filter(
        (c) => c.collation_name !== 'C',
      ),
      [],
      'each in collation "C"',
    )
    for (const spec of allCollections)
      for (const field of spec.lookupFields ?? []) {
        if (spec.sweptValues?.[field] !== undefined) continue
        const { condition } = lookupWhere(spec, field, 'x', '$1')
        t.match(
          await plan(`SELECT doc FROM ${spec.name} WHERE ${condition} LIMIT 10`, ['x']),
          new RegExp(`Index Scan (using|on) ${spec.name}_\\w+_${field}(_set)?\\b`),
          `${spec.name}.${field}`,
        )
      }
  },
)

t.test(
  'postgres: a table made before its collection kept pending events takes them from then on',
  { skip: await postgresSkip() },
  async (t) => {
    const schema = testSchema()
    await tableMadeBeforePending(t, (collections) => createPostgresReadStore(postgresUrl, collections, schema))
  },
)

t.test(
  'postgres: an index the collection no longer asks for is dropped when the store opens',
  { skip: await postgresSkip() },
  async (t) => {
    const schema = testSchema()
    const table = contractCollection.name
    const first = await createPostgresReadStore(postgresUrl, [contractCollection], schema)
    await first.close()
    const client = new pg.Client({ connectionString: postgresUrl })
    await client.connect()
    t.teardown(() => client.end())
    await client.query(`CREATE INDEX ${table}_old_by_email ON ${schema}.${table} (account_id, f_email, id)`)
    await client.query(`CREATE INDEX ${table}_operators_own ON ${schema}.${table} (revision)`)
    const store = await createPostgresReadStore(postgresUrl, [contractCollection], schema)
    t.teardown(() => store.close())
    const { rows } = await client.query(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2',
      [schema, table],
    )
    const names = rows.map((r: { indexname: string }) => r.indexname)
    t.notOk(names.includes(`${table}_old_by_email`), 'the full index by a field is replaced')
    t.ok(names.includes(`${table}_operators_own`), 'an index not named as the store names its own is left alone')
    t.match(
      rows.find((r: { indexname: string }) => r.indexname.endsWith('_by_email_set'))?.indexdef,
      /WHERE \(f_email IS NOT NULL\)/,
    )
  },
)

t.test(
  'postgres: a table made with jsonb documents takes json, its documents read as before',
  { skip: await postgresSkip() },
  async (t) => {
    const schema = testSchema()
    const table = contractCollection.name
    const client = new pg.Client({ connectionString: postgresUrl })
    await client.connect()
    t.teardown(() => client.end())
    const first = await createPostgresReadStore(postgresUrl, [contractCollection], schema)
    await first.close()
    await client.query(`ALTER TABLE ${schema}.${table} ALTER COLUMN doc TYPE jsonb USING doc::jsonb`)
    await client.query(
      `INSERT INTO ${schema}.${table} (account_id, id, key, revision, doc) VALUES (1, 1, 'k', 0, '{"id":1,"email":"e"}')`,
    )
    const store = await createPostgresReadStore(postgresUrl, [contractCollection], schema)
    t.teardown(() => store.close())
    const { rows } = await client.query(
      `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = 'doc'`,
      [schema, table],
    )
    t.equal(rows[0].data_type, 'json')
    t.same((await store.get(table, 1, 1))?.doc, { id: 1, email: 'e' })
  },
)
