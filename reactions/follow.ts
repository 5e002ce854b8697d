import { eventTypes } from '../shared/domain/events/index.ts'
import type { RecordedEvent } from '../shared/infra/event-store/port.ts'
import { waitForAppends } from '../shared/infra/event-store/subscribe.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

const BATCH_SIZE = 1000
const RETRY_DELAY_MS = 1000
/**
 * A checkpoint over batches that asked for nothing is saved at most this
 * often: a reaction handling a batch again does nothing again, and a write
 * per small append would cost every request a transaction.
 */
const IDLE_CHECKPOINT_MS = 1000
/**
 * Under a stream of appends, how long a reaction lets more arrive before it
 * reads: each reaction otherwise reads the log (and mostly finds nothing of
 * its types) once a request.
 */
const GATHER_MS = 10

export interface Reaction {
  /** Its checkpoint's name, beside the projections' in the read store. */
  name: string
  /** Called before following resumes from `after` (the checkpoint): state the reaction rebuilds from the log. */
  resume?(after: bigint): Promise<void>
  /**
   * The only event types that can matter now, when the reaction knows (the
   * webhook reaction while no account has an endpoint): the others are
   * passed over unread. `oneAtATime`: each matching event may change what
   * matters, so they are handled one by one, asking again after each.
   */
  only?(): { types: readonly string[]; oneAtATime?: boolean } | undefined
  /**
   * Event types the reaction never reads: its own records, on streams it
   * never plans from. Read without them, a batch still holds every event of
   * each stream it holds (an append's events for one stream follow one
   * another in the log), so it is still whole.
   */
  passesOver?: readonly string[]
  /**
   * Does what a batch of the log asks; the checkpoint moves past the batch
   * only once it returns. True when it did something. `whole`: the batch
   * holds every event of the log in its range, none passed over by type but
   * those `passesOver` names.
   */
  handle(batch: readonly RecordedEvent[], signal: AbortSignal, whole: boolean): Promise<boolean>
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
  const appends = waitForAppends(rt.eventStore)
  const passedOver = new Set(reaction.passesOver)
  const read = passedOver.size > 0 ? eventTypes.filter((type) => !passedOver.has(type)) : undefined

  /** The position handled so far: saved as the checkpoint, or about to be. */
  let handled = 0n
  const follow = async () => {
    let after = (await rt.readStore.checkpoint(reaction.name)) ?? 0n
    handled = after
    await reaction.resume?.(after)
    let saved = Date.now()
    let unsaved: bigint | undefined
    const save = async (position: bigint) => {
      await rt.readStore.commit([reaction.name], [], position)
      saved = Date.now()
      unsaved = undefined
    }
    try {
      while (!signal.aborted) {
        const only = reaction.only?.()
        const types = only?.types ?? read
        appends.reading()
        // Filtered, the log up to the head is passed over at once: the head is read first, so an
        // event appended meanwhile is either in this read or after the head.
        const head = types ? await rt.eventStore.head() : undefined
        const limit = only?.oneAtATime ? 1 : BATCH_SIZE
        const batch = await rt.eventStore.readAll({ after, types, limit })
        const reached =
          batch.length > 0 ? batch.at(-1)!.position : head !== undefined && head > after ? head : undefined
        if (batch.length > 0 && (await reaction.handle(batch, signal, only === undefined))) {
          if (signal.aborted) return
          after = reached!
          await save(after)
          handled = after
          continue
        }
        if (reached !== undefined) {
          after = reached
          if (Date.now() - saved >= IDLE_CHECKPOINT_MS) await save(after)
          else unsaved = after
          handled = after
          if (batch.length > 0) continue
        }
        await appends.next(rt.config.POLL_INTERVAL_MS, signal, GATHER_MS)
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
    name: reaction.name,
    /** The log position this reaction has handled: tests and /metrics wait for it to pass a write's. */
    position: () => handled,
    async stop() {
      controller.abort() // also ends a wait for appends in progress
      await run
      appends.close()
    },
  }
}
