import type { Logger } from 'pino'
import { startSupervisedThread } from '../threads.ts'

/**
 * Who copies an embedded SQLite file's write-ahead log back into the file.
 * `inline`: SQLite's default, the commit that takes the log past 1000 pages
 * does it, on the writing thread. `background`: the connection never does;
 * a checkpointer thread does (startCheckpointer).
 */
export type WalCheckpoints = 'inline' | 'background'

/** Sets a new connection's checkpoint policy. */
export function applyWalCheckpoints(db: { pragma(sql: string): unknown }, policy: WalCheckpoints = 'inline') {
  if (policy === 'background') db.pragma('wal_autocheckpoint = 0')
}

const INTERVAL_MS = 200
/** A log this long is copied back and started over, waiting for the writer (see checkpoint-thread.mjs). */
const WAL_LIMIT_BYTES = 128 * 2 ** 20
/** A log's file this long (a log that could not be started over for long) is emptied. */
const WAL_FILE_LIMIT_BYTES = 512 * 2 ** 20

/**
 * Checkpoints the given SQLite files from a thread of their own. An inline
 * checkpoint copies megabytes into the file and waits for the disk to sync
 * it, inside some unlucky request. The server's connections leave that to this thread, whose PASSIVE
 * checkpoints run beside readers and the writer without blocking either; a
 * log past `walLimitBytes` is started over, which waits for them, and a file
 * past `walFileLimitBytes` emptied. A thread that dies is restarted;
 * meanwhile the log only grows.
 */
export function startCheckpointer(
  files: readonly string[],
  logger: Logger,
  { walLimitBytes = WAL_LIMIT_BYTES, walFileLimitBytes = WAL_FILE_LIMIT_BYTES } = {},
): Promise<{ stop(): Promise<void> }> {
  return startSupervisedThread(
    new URL('./checkpoint-thread.mjs', import.meta.url),
    { files, intervalMs: INTERVAL_MS, walLimitBytes, walFileLimitBytes },
    'WAL checkpointer',
    logger,
  )
}
