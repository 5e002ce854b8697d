import { parentPort, workerData } from 'node:worker_threads'
import type { ProjectorThreadData } from './projector-thread.ts'
import { openRuntime } from '../shared/infra/runtime.ts'
import { startProjectors } from './runner.ts'

/*
 * The projector role in a worker thread: it gets the second core, so
 * projecting never competes with request handling on the main thread.
 * It opens its own connections to the stores and stops on a 'stop' message.
 */
const { config, walCheckpoints } = workerData as ProjectorThreadData
const rt = await openRuntime(config, { walCheckpoints })
// Each commit is told to the main thread, where writes wait to be visible.
const runner = startProjectors(rt, undefined, (position) =>
  parentPort!.postMessage({ type: 'committed', position: position.toString() }),
)
parentPort!.on('message', async (message) => {
  if (message !== 'stop') return
  await runner.stop()
  await rt.close()
  parentPort!.postMessage('stopped')
})
parentPort!.postMessage('started')
