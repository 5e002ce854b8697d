import { parentPort, workerData } from 'node:worker_threads'
import { openRuntime } from '../shared/infra/runtime.ts'
import { projections } from './projections.ts'
import { joinedShadow, replayPart, type RebuildPartData } from './runner.ts'

/*
 * A part of a projection's rebuild in a worker thread (see rebuildProjection):
 * it opens its own connections to the stores, replays the log into the shadow
 * the calling thread prepared, says how far it got and ends.
 */
const { config, projection: name, part, parts } = workerData as RebuildPartData
const projection = projections.find((p) => p.name === name)
if (!projection) throw new Error(`no projection named ${name}`)
const rt = await openRuntime(config)
try {
  const reached = await replayPart(rt, joinedShadow(rt, projection), part, parts)
  parentPort!.postMessage({ reached: reached?.toString() ?? null })
} finally {
  await rt.close()
}
