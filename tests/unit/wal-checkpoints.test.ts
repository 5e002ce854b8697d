import { statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { pino } from 'pino'
import t from 'tap'
import { applyWalCheckpoints, startCheckpointer } from '../../shared/infra/sqlite/checkpoints.ts'
import { tempDir } from '../support/temp.ts'

t.test(
  'with background checkpoints, the writer never copies its log into the file; the checkpointer thread does',
  async (t) => {
    const file = join(tempDir(t, 'shiplog-wal-'), 'store.db')
    const db = new Database(file)
    db.pragma('journal_mode = WAL')
    applyWalCheckpoints(db, 'background')
    db.exec('CREATE TABLE rows (value TEXT)')
    const insert = db.prepare('INSERT INTO rows (value) VALUES (?)')
    // ~8 MB: twice what SQLite would have checkpointed inline by now.
    for (let i = 0; i < 8; i++)
      db.transaction(() => {
        for (let j = 0; j < 1000; j++) insert.run('x'.repeat(1000))
      })()
    const fileSize = () => statSync(file).size
    t.ok(fileSize() < 100_000, 'the rows are in the log only')

    const checkpointer = await startCheckpointer([file], pino({ level: 'silent' }))
    t.teardown(() => checkpointer.stop())
    for (let waited = 0; fileSize() < 8_000_000 && waited < 5000; waited += 50)
      await new Promise((r) => setTimeout(r, 50))
    t.ok(fileSize() >= 8_000_000, 'the checkpointer copied them into the file')
    t.equal(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM rows').get()!.n, 8000)
    db.close()
  },
)

t.test('a log that writes never pause for is emptied past its limit, and keeps every row', async (t) => {
  const file = join(tempDir(t, 'shiplog-wal-'), 'store.db')
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('busy_timeout = 10000')
  applyWalCheckpoints(db, 'background')
  db.exec('CREATE TABLE rows (value TEXT)')
  const insert = db.prepare('INSERT INTO rows (value) VALUES (?)')
  const write = db.transaction(() => {
    for (let j = 0; j < 500; j++) insert.run('x'.repeat(1000))
  })
  const walSize = () => statSync(`${file}-wal`).size
  const checkpointer = await startCheckpointer([file], pino({ level: 'silent' }), { walLimitBytes: 4_000_000 })
  t.teardown(() => checkpointer.stop())
  // ~60 MB of rows, 0.5 MB a transaction a few milliseconds after the last, as a
  // projector under load commits: PASSIVE checkpoints alone would leave a log as
  // long as all of it.
  let longest = 0
  for (let i = 0; i < 120; i++) {
    write()
    longest = Math.max(longest, walSize())
    await new Promise((r) => setTimeout(r, 5))
  }
  t.ok(longest < 30_000_000, `the log stayed short of what was written (longest ${longest} bytes)`)
  t.equal(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM rows').get()!.n, 60_000)
  db.close()
})
