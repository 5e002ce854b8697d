import { once } from 'node:events'
import { parentPort, workerData } from 'node:worker_threads'
import { openRuntime } from '../shared/infra/runtime.ts'
import { projections } from './all-projections.ts'
import { joinedShadow, replayPart, type PartMessage, type RebuildPartData } from './runner.ts'

/*
 * A part of a projection's rebuild in a worker thread (see replayInParts): it
 * opens its own connections to the stores, says it is ready, replays its part
 * of the log into the shadow the calling thread prepared from the position it
 * is given, says how far it got and ends.
 */
const { config, projection: name, part, parts } = workerData as RebuildPartData
const projection = projections.find((p) => p.name === name)
if (!projection) throw new Error(`no projection named ${name}`)
const port = parentPort!
const say = (message: PartMessage) => port.postMessage(message)
const rt = await openRuntime(config)
try {
  const told = once(port, 'message') as Promise<[{ after: string | null }]>
  say({ ready: true })
  const [{ after }] = await told
  const reached = await replayPart(
    rt,
    joinedShadow(rt, projection),
    part,
    parts,
    after === null ? undefined : BigInt(after),
  )
  say({ reached: reached?.toString() ?? null })
} finally {
  await rt.close()
}
