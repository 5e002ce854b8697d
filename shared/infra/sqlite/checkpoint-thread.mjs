// The WAL checkpointer's thread (see ./checkpoints.ts): plain JavaScript, so
// the thread loads better-sqlite3 and nothing else.
import { statSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

const { files, intervalMs, walLimitBytes } = workerData
const connections = files.map((file) => {
  const db = new Database(file)
  db.pragma('busy_timeout = 10000')
  return { db, wal: `${file}-wal` }
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
// every write. Past its limit, TRUNCATE waits for the writer and the readers
// (briefly: PASSIVE has copied nearly all), copies the rest and empties it.
const timer = setInterval(() => {
  for (const { db, wal } of connections) {
    db.pragma('wal_checkpoint(PASSIVE)')
    if (bytesOf(wal) > walLimitBytes) db.pragma('wal_checkpoint(TRUNCATE)')
  }
}, intervalMs)
parentPort.on('message', (message) => {
  if (message !== 'stop') return
  clearInterval(timer)
  for (const { db } of connections) db.close()
  parentPort.postMessage('stopped')
})
parentPort.postMessage('started')
