import { join } from 'node:path'
import t from 'tap'
import { ConcurrencyError } from '../../shared/domain/errors.ts'
import { createKurrentEventStore } from '../../shared/infra/event-store/kurrentdb.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { EVENTS_TABLE, INSERT_EVENT, openEventsFile } from '../../shared/infra/event-store/sqlite-schema.ts'
import { createPostgresEventStore } from '../../shared/infra/event-store/postgres.ts'
import { postgresSkip, postgresUrl, testSchema } from '../support/postgres.ts'
import { newEvent } from '../support/recorded.ts'
import { tempDir } from '../support/temp.ts'
import { eventStoreContract } from './event-store.contract.ts'

const event = () => newEvent()

t.test('sqlite event store', async (t) => {
  eventStoreContract(t, async () => createSqliteEventStore(join(tempDir(t, 'shiplog-es-'), 'events.db')))
})

t.test('sqlite: a store of another thread reads what this one appends as the file holds it', async (t) => {
  // The projector's thread reads the rows the command side hands it: the contract, appending
  // through one store and reading through another of the same file, once the rows have arrived.
  eventStoreContract(t, async () => {
    const file = join(tempDir(t, 'shiplog-es-'), 'events.db')
    const [writer, reader] = [createSqliteEventStore(file), createSqliteEventStore(file)]
    return {
      ...reader,
      async append(requests) {
        const result = await writer.append(requests)
        await new Promise((resolve) => setImmediate(resolve))
        return result
      },
      async close() {
        await writer.close()
        await reader.close()
      },
    }
  })
})

t.test('sqlite: a stream named twice in one append is checked against what the append wrote before', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-es-'), 'events.db'))
  t.teardown(() => store.close())
  const result = await store.append([
    { stream: 'thing-1', expected: 'no_stream', events: [event()] },
    { stream: 'thing-1', expected: 0, events: [event(), event()] },
  ])
  t.same(result.revisions, [0, 2])
  await t.rejects(
    store.append([
      { stream: 'thing-2', expected: 'no_stream', events: [event()] },
      { stream: 'thing-2', expected: 'no_stream', events: [event()] },
    ]),
    ConcurrencyError,
  )
  t.same(await store.readStream('thing-2'), [], 'nothing of the failed append is written')
})

t.test('sqlite: a log written one event a row is read as before, and appends go on after it', async (t) => {
  const file = join(tempDir(t, 'shiplog-es-'), 'events.db')
  // A log as earlier versions wrote it: no parts column, one row an event.
  const old = openEventsFile(file)
  old.exec(EVENTS_TABLE.replace(/\s*parts\s+TEXT,/, ''))
  const insert = old.prepare(INSERT_EVENT)
  for (const [revision, type] of ['A', 'B'].entries())
    insert.run(`old-${type}`, 'thing-1', revision, type, JSON.stringify({ type }), '{"accountId":1}', 0)
  old.close()
  const store = createSqliteEventStore(file)
  t.teardown(() => store.close())
  await store.append([{ stream: 'thing-1', expected: 1, events: [event(), event()] }])
  const read = await store.readStream('thing-1')
  t.same(
    read.map((e) => [e.type, e.revision, e.position]),
    [
      ['A', 0, 1n],
      ['B', 1, 2n],
      ['Thing', 2, 3n],
      ['Thing', 3, 4n],
    ],
  )
  t.same(read[1]!.data, { type: 'B' })
  t.equal(await store.head(), 4n)
  const db = openEventsFile(file)
  t.teardown(() => db.close())
  t.same(
    db.prepare('SELECT position, revision, type, data FROM event_log ORDER BY position').all(),
    read.map((e) => ({
      position: Number(e.position),
      revision: e.revision,
      type: e.type,
      data: JSON.stringify(e.data),
    })),
    'SQL on the file reads one row an event',
  )
})

const url = process.env.EVENTSTORE_URL
t.test(
  'kurrentdb event store',
  { skip: url ? false : 'EVENTSTORE_URL is not set: no KurrentDB server to test against' },
  async (t) => {
    eventStoreContract(t, async () => createKurrentEventStore(url!))
  },
)

t.test('postgres event store', { skip: await postgresSkip() }, async (t) => {
  eventStoreContract(t, async () => createPostgresEventStore(postgresUrl, testSchema()))
})

t.test(
  'postgres: concurrent appends get gap-free positions, committed in position order',
  { skip: await postgresSkip() },
  async (t) => {
    const store = await createPostgresEventStore(postgresUrl, testSchema())
    t.teardown(() => store.close())
    // A reader polling while 8 writers append must never see a position before one it has already passed.
    const seen: bigint[] = []
    let done = false
    const reader = (async () => {
      let after = 0n
      while (!done || after < (await store.head())) {
        for (const e of await store.readAll({ after, limit: 1000 })) {
          seen.push(e.position)
          after = e.position
        }
      }
    })()
    await Promise.all(
      Array.from({ length: 8 }, (_, w) =>
        (async () => {
          for (let i = 0; i < 25; i++)
            await store.append([{ stream: `w${w}`, expected: 'any', events: [event(), event()] }])
        })(),
      ),
    )
    done = true
    await reader
    t.equal(seen.length, 400, 'every event read once')
    t.same(
      seen,
      Array.from({ length: 400 }, (_, i) => BigInt(i + 1)),
      'positions 1..400, in order, none skipped',
    )
  },
)

t.test(
  'postgres: an append in one process wakes the followers of another (LISTEN/NOTIFY)',
  { skip: await postgresSkip() },
  async (t) => {
    const schema = testSchema()
    const [follower, writer] = [
      await createPostgresEventStore(postgresUrl, schema),
      await createPostgresEventStore(postgresUrl, schema),
    ]
    t.teardown(async () => {
      await follower.close()
      await writer.close()
    })
    const woken = new Promise<string>((resolve) => follower.onAppend(() => resolve('woken')))
    await writer.append([
      {
        stream: 'thing-1',
        expected: 'no_stream',
        events: [event()],
      },
    ])
    const timeout = new Promise<string>((resolve) => setTimeout(resolve, 5000, 'not woken').unref())
    t.equal(await Promise.race([woken, timeout]), 'woken', 'without polling')
  },
)
