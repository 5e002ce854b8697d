// The WAL checkpointer's thread (see ./checkpoints.ts): plain JavaScript, so
// the thread loads better-sqlite3 and nothing else.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

const { files, intervalMs } = workerData
const connections = files.map((file) => {
  const db = new Database(file)
  db.pragma('busy_timeout = 10000')
  return db
})
// PASSIVE never waits for a reader or the writer: it copies what it can and
// leaves the rest for the next round.
const timer = setInterval(() => {
  for (const db of connections) db.pragma('wal_checkpoint(PASSIVE)')
}, intervalMs)
parentPort.on('message', (message) => {
  if (message !== 'stop') return
  clearInterval(timer)
  for (const db of connections) db.close()
  parentPort.postMessage('stopped')
})
parentPort.postMessage('started')
