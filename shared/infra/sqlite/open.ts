import Database from 'better-sqlite3'
import { BUSY_TIMEOUT_MS } from './busy.ts'

/**
 * Opens an embedded store's SQLite file in WAL mode, so the server's threads
 * and the CLI can share it; a statement waits out another connection's lock
 * up to BUSY_TIMEOUT_MS. A new file gets `pageSize` pages; only before WAL
 * does the setting take, so a file keeps the size it was made with. In WAL
 * mode `NORMAL` syncs the log at checkpoints rather than at every commit.
 */
export function openWalFile(file: string, pageSize: number) {
  const db = new Database(file)
  db.pragma(`page_size = ${pageSize}`)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  return db
}
