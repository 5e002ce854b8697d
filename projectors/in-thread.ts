import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { Config } from '../shared/config.ts'
import type { WalCheckpoints } from '../shared/sqlite/checkpoints.ts'
import type { ProjectorRunner } from './runner.ts'

export interface ProjectorThreadData {
  config: Config
  walCheckpoints: WalCheckpoints
}

const RESTART_DELAY_MS = 1000

/** Runs every projection in a worker thread; a thread that dies is restarted from the checkpoints. */
export async function startProjectorThread(config: Config, walCheckpoints: WalCheckpoints, logger: Logger): Promise<ProjectorRunner> {
  let stopping = false
  let worker: Worker
  const start = async () => {
    worker = new Worker(new URL('./thread-entry.mjs', import.meta.url), { workerData: { config, walCheckpoints } satisfies ProjectorThreadData })
    worker.on('error', (error) => logger.error({ err: error }, 'projector thread failed'))
    worker.on('exit', (code) => {
      if (stopping) return
      logger.error({ code }, 'projector thread exited; restarting')
      setTimeout(() => void start(), RESTART_DELAY_MS)
    })
    const [message] = await once(worker, 'message')
    if (message !== 'started') throw new Error(`projector thread said ${String(message)}`)
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
