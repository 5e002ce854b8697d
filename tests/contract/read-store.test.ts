import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createMongoReadStore } from '../../shared/read-store/mongodb.ts'
import { createSqliteReadStore } from '../../shared/read-store/sqlite.ts'
import { contractCollection, readStoreContract } from './read-store.contract.ts'

t.test('sqlite read store', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'shiplog-rs-')), 'read.db')
  readStoreContract(t, async () => createSqliteReadStore(file, [contractCollection]))
})

const url = process.env.MONGODB_URL
t.test('mongodb read store', { skip: url ? false : 'MONGODB_URL is not set: no MongoDB server to test against' }, async (t) => {
  readStoreContract(t, () => createMongoReadStore(url!, [contractCollection]))
})
