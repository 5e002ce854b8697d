import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createKurrentEventStore } from '../../shared/event-store/kurrentdb.ts'
import { createSqliteEventStore } from '../../shared/event-store/sqlite.ts'
import { eventStoreContract } from './event-store.contract.ts'

t.test('sqlite event store', async (t) => {
  eventStoreContract(t, async () => createSqliteEventStore(join(mkdtempSync(join(tmpdir(), 'shiplog-es-')), 'events.db')))
})

const url = process.env.EVENTSTORE_URL
t.test('kurrentdb event store', { skip: url ? false : 'EVENTSTORE_URL is not set: no KurrentDB server to test against' }, async (t) => {
  eventStoreContract(t, async () => createKurrentEventStore(url!))
})
