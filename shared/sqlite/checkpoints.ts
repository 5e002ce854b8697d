import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'

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
const RESTART_DELAY_MS = 1000

/**
 * Checkpoints the given SQLite files from a thread of their own. An inline
 * checkpoint copies ~4 MB into the file and waits for the disk to sync it,
 * inside some unlucky request: measured, 18% of appending a 1000-row import
 * chunk. The server's connections leave that to this thread, whose PASSIVE
 * checkpoints run beside readers and the writer without blocking either. A
 * thread that dies is restarted; meanwhile the log only grows.
 */
export async function startCheckpointer(files: readonly string[], logger: Logger): Promise<{ stop(): Promise<void> }> {
  let stopping = false
  let worker: Worker
  const start = async () => {
    worker = new Worker(new URL('./checkpoint-thread.mjs', import.meta.url), { workerData: { files, intervalMs: INTERVAL_MS } })
    worker.on('error', (error) => logger.error({ err: error }, 'WAL checkpointer failed'))
    worker.on('exit', (code) => {
      if (stopping) return
      logger.error({ code }, 'WAL checkpointer exited; restarting')
      setTimeout(() => void start(), RESTART_DELAY_MS)
    })
    await once(worker, 'message')
  }
  await start()
  return {
    async stop() {
      stopping = true
      worker.postMessage('stop')
      await once(worker, 'message')
      await worker.terminate()
    },
  }
}
