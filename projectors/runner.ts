import type { Logger } from 'pino'
import { subscribeToAll } from '../shared/event-store/subscribe.ts'
import type { Runtime } from '../shared/runtime.ts'
import type { Projection } from './projection.ts'
import { projections as allProjections } from './projections.ts'

export interface ProjectorRunner {
  /** Finishes the batch in hand, saves its checkpoint and stops. */
  stop(): Promise<void>
}

const RETRY_DELAY_MS = 1000

/**
 * Runs each projection from its checkpoint: catch-up, then live. A batch's
 * documents and the checkpoint after it are committed together (one
 * transaction in the embedded store), so a stop at any moment resumes exactly
 * where it left off.
 */
export function startProjectors(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'logger'>,
  projections: readonly Projection[] = allProjections,
): ProjectorRunner {
  const controller = new AbortController()
  const runs = projections.map((p) => keepRunning(rt, p, controller.signal, rt.logger.child({ projection: p.name })))
  return {
    async stop() {
      controller.abort()
      await Promise.all(runs)
    },
  }
}

async function keepRunning(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>,
  projection: Projection,
  signal: AbortSignal,
  log: Logger,
) {
  while (!signal.aborted) {
    try {
      await runProjection(rt, projection, signal)
    } catch (error) {
      // A store that is down must not kill the process: log, wait, resume from the checkpoint.
      log.error({ err: error }, 'projection failed; retrying from its checkpoint')
      await new Promise((r) => setTimeout(r, RETRY_DELAY_MS))
    }
  }
}

export async function runProjection(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>,
  projection: Projection,
  signal: AbortSignal,
) {
  const after = await rt.readStore.checkpoint(projection.name)
  // Unfiltered on purpose: the checkpoint must pass every event, so a reader
  // waiting for a position never waits on events this projection ignores.
  for await (const batch of subscribeToAll(rt.eventStore, { after, pollMs: rt.config.POLL_INTERVAL_MS, signal })) {
    const writes = await projection.apply(batch, rt.readStore)
    await rt.readStore.commit(projection.name, writes, batch[batch.length - 1]!.position)
  }
}

/** Applies every event already in the store to one projection, then returns (the CLI's catch-up). */
export async function catchUp(
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  projection: Projection,
  options: { batchSize?: number; onBatch?: (events: number, position: bigint) => void } = {},
) {
  let after = await rt.readStore.checkpoint(projection.name)
  for (;;) {
    const batch = await rt.eventStore.readAll({ after, limit: options.batchSize ?? 1000 })
    if (batch.length === 0) return
    after = batch[batch.length - 1]!.position
    await rt.readStore.commit(projection.name, await projection.apply(batch, rt.readStore), after)
    options.onBatch?.(batch.length, after)
  }
}

/**
 * Rebuilds a projection from position 0 into a shadow collection while the
 * live one keeps serving, then swaps it in atomically once it has caught up
 * with the live projection.
 */
export async function rebuildProjection(
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  projection: Projection,
  onBatch?: (events: number, position: bigint) => void,
) {
  const shadowName = `${projection.name}__rebuild`
  const shadow = projection.retarget(shadowName, await rt.readStore.prepareRebuild(projection.collection, shadowName))
  do await catchUp(rt, shadow, { batchSize: 5000, onBatch })
  while (!(await rt.readStore.completeRebuild(projection.collection, projection.name, shadowName)))
}
