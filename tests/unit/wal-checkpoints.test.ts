import { statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { pino } from 'pino'
import t, { type Test } from 'tap'
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

/**
 * ~60 MB of rows, 0.5 MB a transaction a few milliseconds after the last, as a
 * projector under load commits, beside a checkpointer with the given limits:
 * PASSIVE checkpoints alone would leave a log as long as all of it. With
 * `reader`, another connection keeps a read open on the log's first pages
 * throughout. Returns the log file's sizes and the transactions' durations,
 * one a transaction, and the rows kept.
 */
async function writeWithoutPause(t: Test, limits: Parameters<typeof startCheckpointer>[2], reader = false) {
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
  const checkpointer = await startCheckpointer([file], pino({ level: 'silent' }), limits)
  t.teardown(() => checkpointer.stop())
  write()
  const reading = reader ? new Database(file) : undefined
  reading?.exec('BEGIN')
  reading?.prepare('SELECT count(*) FROM rows').get()
  const sizes: number[] = []
  const durations: number[] = []
  for (let i = 1; i < 120; i++) {
    const startedAt = performance.now()
    write()
    durations.push(performance.now() - startedAt)
    sizes.push(statSync(`${file}-wal`).size)
    await new Promise((r) => setTimeout(r, 5))
  }
  reading?.exec('COMMIT')
  reading?.close()
  const rows = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM rows').get()!.n
  db.close()
  return { sizes, durations, rows }
}

t.test(
  'a log that writes never pause for is started over past its limit, in the file it has, and keeps every row',
  async (t) => {
    const { sizes, rows } = await writeWithoutPause(t, { walLimitBytes: 4_000_000, walFileLimitBytes: 2 ** 40 })
    const longest = Math.max(...sizes)
    t.ok(longest < 30_000_000, `the log stayed short of what was written (longest ${longest} bytes)`)
    const firstPast = sizes.findIndex((size) => size > 4_000_000)
    const shortestAfter = Math.min(...sizes.slice(firstPast))
    t.ok(
      shortestAfter > 4_000_000,
      `its file was written over, not emptied (shortest after the limit ${shortestAfter} bytes)`,
    )
    t.equal(rows, 60_000)
  },
)

t.test('a log whose file passes its own limit is emptied, and keeps every row', async (t) => {
  const { sizes, rows } = await writeWithoutPause(t, { walLimitBytes: 2 ** 40, walFileLimitBytes: 4_000_000 })
  const longest = Math.max(...sizes)
  t.ok(longest < 30_000_000, `the file stayed short of what was written (longest ${longest} bytes)`)
  t.ok(
    sizes.slice(sizes.indexOf(longest)).some((size) => size < longest / 2),
    'the file was emptied',
  )
  t.equal(rows, 60_000)
})

t.test('a reader left open on the log holds the writer back briefly, not until it is done', async (t) => {
  const { durations, rows } = await writeWithoutPause(t, { walLimitBytes: 4_000_000, walFileLimitBytes: 2 ** 40 }, true)
  const slowest = Math.max(...durations)
  t.ok(slowest < 2000, `the slowest transaction took ${Math.round(slowest)} ms`)
  t.equal(rows, 60_000)
})
