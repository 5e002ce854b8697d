import type { Logger } from 'pino'
import { subscribeToAll } from '../shared/infra/event-store/subscribe.ts'
import type { DocumentWrite } from '../shared/infra/read-store/port.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import type { Projection } from './projection.ts'
import { projections as allProjections } from './projections.ts'

export interface ProjectorRunner {
  /** Finishes the batch in hand, saves its checkpoint and stops. */
  stop(): Promise<void>
}

const RETRY_DELAY_MS = 1000
/**
 * Most events a live batch holds. A batch's events, documents and their JSON
 * live until its commit: larger batches behind an import outlive young-generation
 * collections and fill the projector's old generation.
 */
const LIVE_BATCH_SIZE = 1000

/**
 * Runs the projections from their checkpoints: catch-up, then live. One reader
 * serves them all, so each event is read once whatever the number of read
 * models. A batch's documents and the checkpoint after it are committed
 * together (one transaction in the embedded store), so a stop at any moment
 * resumes exactly where it left off.
 */
export function startProjectors(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'logger'>,
  projections: readonly Projection[] = allProjections,
  /** Told after each commit the position every projection has now passed. */
  onCommitted?: (position: bigint) => void,
): ProjectorRunner {
  const controller = new AbortController()
  const run = keepRunning(rt, projections, controller.signal, rt.logger.child({ role: 'projector' }), onCommitted)
  return {
    async stop() {
      controller.abort()
      await run
    },
  }
}

async function keepRunning(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>,
  projections: readonly Projection[],
  signal: AbortSignal,
  log: Logger,
  onCommitted?: (position: bigint) => void,
) {
  while (!signal.aborted) {
    try {
      await runProjections(rt, projections, signal, onCommitted)
    } catch (error) {
      // A store that is down must not kill the process: log, wait, resume from the checkpoints.
      log.error({ err: error }, 'projection failed; retrying from the checkpoints')
      await new Promise((r) => setTimeout(r, RETRY_DELAY_MS))
    }
  }
}

export async function runProjections(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>,
  projections: readonly Projection[],
  signal: AbortSignal,
  onCommitted?: (position: bigint) => void,
) {
  const checkpoints = new Map<Projection, bigint>()
  for (const p of projections) checkpoints.set(p, (await rt.readStore.checkpoint(p.name)) ?? 0n)
  const after = [...checkpoints.values()].reduce((a, b) => (a < b ? a : b))
  // Unfiltered on purpose: every checkpoint must pass every event, so a reader
  // waiting for a position never waits on events a projection ignores.
  for await (const batch of subscribeToAll(rt.eventStore, {
    after,
    batchSize: LIVE_BATCH_SIZE,
    pollMs: rt.config.POLL_INTERVAL_MS,
    signal,
  })) {
    const last = batch[batch.length - 1]!.position
    // Every read model's share of the batch goes in one commit: each read
    // model reads only its own collection, and an index page that several
    // documents touch is written once.
    const advanced: Projection[] = []
    const writes: DocumentWrite[] = []
    for (const [projection, checkpoint] of checkpoints) {
      if (checkpoint >= last) continue
      const events = checkpoint >= batch[0]!.position ? batch.filter((e) => e.position > checkpoint) : batch
      writes.push(...(await projection.apply(events, rt.readStore)))
      advanced.push(projection)
    }
    if (advanced.length > 0) {
      await rt.readStore.commit(
        advanced.map((p) => p.name),
        writes,
        last,
      )
      for (const projection of advanced) checkpoints.set(projection, last)
    }
    onCommitted?.(last)
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
    await rt.readStore.commit([projection.name], await projection.apply(batch, rt.readStore), after)
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
