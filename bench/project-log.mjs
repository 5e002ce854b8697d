// The measured process of bench/projector-instructions.ts: opens the stores in
// DATA_DIR with the compiled service (dist/), runs every read model from its
// checkpoint up to position UNTIL (else the log's head) in one thread, one
// commit a batch as the live runner does, and prints the position reached.
// LEAVE_OUT names read models not to run (comma-separated): what one costs is
// the difference.
import { runProjections } from '../dist/projectors/runner.js'
import { projections } from '../dist/projectors/all-projections.js'
import { loadConfig } from '../dist/shared/infra/config.js'
import { openRuntime } from '../dist/shared/infra/runtime.js'

const runtime = await openRuntime(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { walCheckpoints: 'background' })
const head = await runtime.eventStore.head()
const until = process.env.UNTIL ? BigInt(process.env.UNTIL) : head
const leftOut = new Set((process.env.LEAVE_OUT ?? '').split(',').filter(Boolean))
for (const name of leftOut)
  if (!projections.some((p) => p.name === name)) throw new Error(`LEAVE_OUT: no read model is named ${name}`)
let reached = (await runtime.readStore.checkpoint('orders')) ?? 0n
if (until > reached) {
  const controller = new AbortController()
  const run = projections.filter((p) => !leftOut.has(p.name))
  await runProjections(runtime, run, controller.signal, (position) => {
    reached = position
    if (position >= until) controller.abort()
  })
}
console.log(`reached ${reached}`)
await runtime.close()
