import type { Logger } from 'pino'
import type { Config } from '../shared/infra/config.ts'
import type { WalCheckpoints } from '../shared/infra/sqlite/checkpoints.ts'
import { startSupervisedThread } from '../shared/infra/threads.ts'
import type { ProjectorRunner } from './runner.ts'
import type { ProjectionProgress } from '../shared/infra/read-store/projection-progress.ts'

export interface ProjectorThreadData {
  main: 'projector-thread-main'
  config: Config
  walCheckpoints: WalCheckpoints
}

/** Runs every projection in a worker thread; a thread that dies is restarted from the checkpoints. */
export function startProjectorThread(
  config: Config,
  walCheckpoints: WalCheckpoints,
  logger: Logger,
  progress?: ProjectionProgress,
): Promise<ProjectorRunner> {
  const data: ProjectorThreadData = { main: 'projector-thread-main', config, walCheckpoints }
  return startSupervisedThread(
    new URL('./thread-entry.mjs', import.meta.url),
    data,
    'projector thread',
    logger,
    (message) => {
      const committed = message as { type?: string; position?: string }
      if (committed.type === 'committed' && committed.position) progress?.advance(BigInt(committed.position))
    },
  )
}
