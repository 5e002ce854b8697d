import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import t from 'tap'
import { toNewEvents } from '../../commands/execute.ts'
import type { DomainEvent } from '../../shared/domain/events/index.ts'
import type { EventMetadata } from '../../shared/infra/event-store/port.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { BUSY_TIMEOUT_MS, writeWhenFree } from '../../shared/infra/sqlite/busy.ts'
import { tempDir } from '../support/temp.ts'

const metadata = (): EventMetadata => ({ accountId: 1, correlationId: 'test', source: 'reaction', recordedAt: 0 })
const completed = (n: number): DomainEvent =>
  ({ type: 'JobCompleted', data: { results_count: n, at: n } }) as DomainEvent
const append = (store: ReturnType<typeof createSqliteEventStore>, stream: string) =>
  store.append([{ stream, expected: 'no_stream', events: toNewEvents([completed(1)], metadata()) }])

t.test('appends blocked by another connection leave the thread free, and are stored once it lets go', async (t) => {
  const file = join(tempDir(t, 'shiplog-lock-'), 'events.db')
  const store = createSqliteEventStore(file)
  t.teardown(() => store.close())
  // Another writer on this same thread, as a checkpoint starting the log over
  // holds it: were the append to sleep in SQLite's busy handler, this thread
  // could never let go, and the append would fail after the busy timeout.
  const other = new Database(file)
  t.teardown(() => other.close())
  other.exec('BEGIN IMMEDIATE')

  let settled = 0
  const first = append(store, 'job-1_1').finally(() => settled++)
  await sleep(20)
  const second = append(store, 'job-1_2').finally(() => settled++)
  const asleepFrom = performance.now()
  await sleep(50)
  const slept = performance.now() - asleepFrom
  t.ok(slept < 1000, `timers ran while the appends waited (50 ms took ${Math.round(slept)} ms)`)
  t.equal(settled, 0, 'neither append is answered while the other connection holds the log')

  other.exec('COMMIT')
  const [a, b] = await Promise.all([first, second])
  t.equal(b.position, a.position + 1n, 'both were committed, in the order asked')
  t.equal((await store.readStream('job-1_1')).length, 1)
  t.equal((await store.readStream('job-1_2')).length, 1)
})

t.test('a checkpoint saved while another connection writes waits without stopping the thread', async (t) => {
  const file = join(tempDir(t, 'shiplog-lock-'), 'read.db')
  const store = createSqliteReadStore(file, [])
  t.teardown(() => store.close())
  // The projector's commit, as a reaction on the request thread meets it.
  const other = new Database(file)
  t.teardown(() => other.close())
  other.exec('BEGIN IMMEDIATE')

  let saved = false
  const saving = store.commit(['webhooks'], [], 42n).then(() => {
    saved = true
  })
  const asleepFrom = performance.now()
  await sleep(50)
  const slept = performance.now() - asleepFrom
  t.ok(slept < 1000, `timers ran while the checkpoint waited (50 ms took ${Math.round(slept)} ms)`)
  t.notOk(saved, 'the checkpoint is not saved while the other connection holds the file')

  other.exec('COMMIT')
  await saving
  t.equal(await store.checkpoint('webhooks'), 42n, 'saved once the other connection let go')
})

t.test("a write takes no busy wait, and the connection's other statements wait again after it", async (t) => {
  const db = new Database(join(tempDir(t, 'shiplog-lock-'), 'any.db'))
  t.teardown(() => db.close())
  const timeout = () => db.pragma('busy_timeout', { simple: true })
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  const during = await writeWhenFree(db, timeout)
  t.equal(during, 0, 'inside the write, a lock held elsewhere fails at once, to be tried again on a timer')
  t.equal(timeout(), BUSY_TIMEOUT_MS, 'after it, a read waits for a lock as before')
  await t.rejects(
    writeWhenFree(db, () => {
      throw new Error('not busy')
    }),
    /not busy/,
  )
  t.equal(timeout(), BUSY_TIMEOUT_MS, 'after a write that failed too')
})
