import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { createMongoReadStore } from '../../shared/infra/read-store/mongodb.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { createPostgresReadStore } from '../../shared/infra/read-store/postgres.ts'
import { postgresSkip, postgresUrl, testSchema } from '../support/postgres.ts'
import { tempDir } from '../support/temp.ts'
import { contractCollection, contractCollections, readStoreContract, textOfView } from './read-store.contract.ts'

t.test('sqlite read store', async (t) => {
  const file = join(tempDir(t, 'shiplog-rs-'), 'read.db')
  readStoreContract(t, async () => createSqliteReadStore(file, contractCollections))
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
  const queryIndexes = ['by_account_id', 'by_created_at', 'by_email']
  t.same(indexes(contractCollection.name), queryIndexes)
  const shadow = await store.prepareRebuild(contractCollection.name, 'contract-shadow')
  t.same(indexes(shadow), [], 'filled without them')
  await store.indexRebuild(contractCollection.name)
  t.same(indexes(shadow), queryIndexes, 'built once filled')
  await store.commit(['contract-shadow'], [], 1n)
  t.ok(await store.completeRebuild(contractCollection.name, 'contract', 'contract-shadow'))
  t.same(indexes(contractCollection.name), queryIndexes, 'swapped in with them')
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
