// The WAL checkpointer's thread (see ./checkpoints.ts): plain JavaScript, so
// the thread loads better-sqlite3 and nothing else.
import { statSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

const { files, intervalMs, walLimitBytes, walFileLimitBytes } = workerData
// A checkpoint that starts the log over holds the writer while it waits for
// the readers still on the log's pages: it gives up soon, and after giving
// up leaves the writer alone for a while (a reader can be an export or a
// rebuild, reading for minutes).
const BUSY_TIMEOUT_MS = 100
const PAUSE_AFTER_BUSY_MS = 5000
const connections = files.map((file) => {
  const db = new Database(file)
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  return { db, wal: `${file}-wal`, pageBytes: db.pragma('page_size', { simple: true }), notBefore: 0 }
})
const bytesOf = (file) => {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}
// PASSIVE never waits for a reader or the writer: it copies what it can and
// leaves the rest for the next round. Under writes that never pause, it never
// copies the last frames, and the log is never started over: it grows with
// every write. Past its limit, RESTART waits for the writer and the readers
// (briefly: PASSIVE has copied nearly all), copies the rest, and the next
// commit starts the log over at the beginning of its file, which costs less to
// write again than new pages do. TRUNCATE, which also empties the file, waits
// for the disk to drop every page of it: only a file far past its limit (a
// log that could not be started over for long) is worth that.
const timer = setInterval(() => {
  for (const connection of connections) {
    const { db, wal, pageBytes } = connection
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)')
    if (performance.now() < connection.notBefore) continue
    const mode = bytesOf(wal) > walFileLimitBytes ? 'TRUNCATE' : log * pageBytes > walLimitBytes ? 'RESTART' : undefined
    if (mode === undefined) continue
    const [{ busy }] = db.pragma(`wal_checkpoint(${mode})`)
    if (busy) connection.notBefore = performance.now() + PAUSE_AFTER_BUSY_MS
  }
}, intervalMs)
parentPort.on('message', (message) => {
  if (message !== 'stop') return
  clearInterval(timer)
  for (const { db } of connections) db.close()
  parentPort.postMessage('stopped')
})
parentPort.postMessage('started')
