import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'

const RESTART_DELAY_MS = 1000

/**
 * A worker thread of the server's own (the projector, the WAL checkpointer),
 * kept running: one that dies is restarted after a second. The thread says
 * 'started' when it is ready, and answers a 'stop' message once it has
 * finished what it had in hand.
 */
export async function startSupervisedThread(
  entry: URL,
  workerData: unknown,
  name: string,
  logger: Logger,
  /** Told every message the thread sends besides 'started' and 'stopped'. */
  onMessage?: (message: unknown) => void,
): Promise<{ stop(): Promise<void> }> {
  let stopping = false
  let worker: Worker
  const start = async () => {
    worker = new Worker(entry, { workerData })
    worker.on('error', (error) => logger.error({ err: error }, `${name} failed`))
    worker.on('exit', (code) => {
      if (stopping) return
      logger.error({ code }, `${name} exited; restarting`)
      setTimeout(() => void start(), RESTART_DELAY_MS)
    })
    worker.on('message', (message) => {
      if (message !== 'started' && message !== 'stopped') onMessage?.(message)
    })
    const [message] = await once(worker, 'message')
    if (message !== 'started') throw new Error(`${name} said ${String(message)}`)
  }
  const said = (word: string) =>
    new Promise<void>((resolve) => {
      const listen = (message: unknown) => {
        if (message !== word) return
        worker.off('message', listen)
        resolve()
      }
      worker.on('message', listen)
    })
  await start()
  return {
    async stop() {
      stopping = true
      const stopped = said('stopped')
      worker.postMessage('stop')
      await stopped
      await worker.terminate()
    },
  }
}
