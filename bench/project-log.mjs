// The measured process of bench/projector-instructions.ts: opens the stores in
// DATA_DIR with the compiled service (dist/), runs every read model from its
// checkpoint to the log's head in one thread, one commit a batch as the live
// runner does, and prints how many events it projected.
import { runProjections } from '../dist/projectors/runner.js'
import { projections } from '../dist/projectors/projections.js'
import { loadConfig } from '../dist/shared/infra/config.js'
import { openRuntime } from '../dist/shared/infra/runtime.js'

const runtime = await openRuntime(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { walCheckpoints: 'background' })
const head = await runtime.eventStore.head()
const from = (await runtime.readStore.checkpoint('orders')) ?? 0n
if (head > from) {
  const controller = new AbortController()
  await runProjections(runtime, projections, controller.signal, (position) => {
    if (position >= head) controller.abort()
  })
}
console.log(`projected ${head - from}`)
await runtime.close()
