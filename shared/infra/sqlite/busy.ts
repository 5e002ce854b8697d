import { setTimeout as sleep } from 'node:timers/promises'

/** How long an embedded store's statement waits for another connection's lock before it fails. */
export const BUSY_TIMEOUT_MS = 10_000

/** How often a write blocked by another connection's lock tries again. */
const BUSY_RETRY_MS = 2

export const isBusy = (error: unknown) => (error as { code?: string }).code?.startsWith('SQLITE_BUSY') === true

/**
 * Runs a write transaction without SQLite's busy handler: while another
 * connection holds the file (the other thread's commit, a checkpoint
 * starting the log over, the CLI), the handler would sleep on this thread
 * and stop everything it serves. The write is tried again on a timer
 * instead, and fails as a blocked statement would after BUSY_TIMEOUT_MS.
 */
export async function writeWhenFree<T>(db: { exec(sql: string): unknown }, write: () => T): Promise<T> {
  const since = performance.now()
  for (;;) {
    // Run with exec each time: SQLite sets the timeout when it prepares the statement, so
    // one prepared once cannot be reused, and pragma() reads a row back at five times the cost.
    db.exec('PRAGMA busy_timeout = 0')
    try {
      return write()
    } catch (error) {
      if (!isBusy(error) || performance.now() - since >= BUSY_TIMEOUT_MS) throw error
    } finally {
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    }
    await sleep(BUSY_RETRY_MS)
  }
}
