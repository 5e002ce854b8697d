import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { subscribeToAll } from '../../shared/infra/event-store/subscribe.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'

const BATCH_SIZE = 1000
const RETRY_DELAY_MS = 1000
/**
 * A checkpoint over batches that asked for nothing is saved at most this
 * often: a reaction handling a batch again does nothing again, and a write
 * per small append would cost every request a transaction.
 */
const IDLE_CHECKPOINT_MS = 1000

export interface Reaction {
  /** Its checkpoint's name, beside the projections' in the read store. */
  name: string
  /** Called before following resumes from `after` (the checkpoint): state the reaction rebuilds from the log. */
  resume?(after: bigint): Promise<void>
  /**
   * Does what a batch of the log asks; the checkpoint moves past the batch
   * only once it returns. True when it did something.
   */
  handle(batch: readonly RecordedEvent[], signal: AbortSignal): Promise<boolean>
}

/**
 * Runs a reaction: follows the log from its checkpoint, as a projection does,
 * and moves the checkpoint after each batch it handled. A fault (a store
 * down) is logged and the reaction resumes from its checkpoint a second
 * later, so a batch is handled at least once: reactions make their effects
 * idempotent.
 */
export function startReaction(rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'logger'>, reaction: Reaction) {
  const controller = new AbortController()
  const { signal } = controller
  const log = rt.logger.child({ role: reaction.name })
  const follow = async () => {
    const after = (await rt.readStore.checkpoint(reaction.name)) ?? 0n
    await reaction.resume?.(after)
    const batches = subscribeToAll(rt.eventStore, {
      after,
      batchSize: BATCH_SIZE,
      pollMs: rt.config.POLL_INTERVAL_MS,
      signal,
    })
    let saved = Date.now()
    let unsaved: bigint | undefined
    const save = async (position: bigint) => {
      await rt.readStore.commit([reaction.name], [], position)
      saved = Date.now()
      unsaved = undefined
    }
    try {
      for await (const batch of batches) {
        const acted = await reaction.handle(batch, signal)
        if (signal.aborted) return
        const position = batch.at(-1)!.position
        if (acted || Date.now() - saved >= IDLE_CHECKPOINT_MS) await save(position)
        else unsaved = position
      }
    } finally {
      if (unsaved !== undefined) await save(unsaved)
    }
  }
  const run = (async () => {
    while (!signal.aborted) {
      try {
        await follow()
      } catch (error) {
        log.error({ err: error }, `${reaction.name} reaction failed; resuming from its checkpoint`)
        await new Promise((r) => setTimeout(r, RETRY_DELAY_MS))
      }
    }
  })()
  return {
    async stop() {
      controller.abort()
      await run
    },
  }
}
