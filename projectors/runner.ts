import { availableParallelism } from 'node:os'
import { setImmediate } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { Config } from '../shared/infra/config.ts'
import { subscribeToAll } from '../shared/infra/event-store/subscribe.ts'
import type { RecordedEvent } from '../shared/infra/event-store/port.ts'
import type { DocumentAppend, DocumentWrite, ReadStore } from '../shared/infra/read-store/port.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { spareCoreGate } from '../shared/infra/spare-core.ts'
import type { Projection } from './document-projection.ts'
import { projections as allProjections } from './all-projections.ts'

export interface ProjectorRunner {
  /** Finishes the batch in hand, saves its checkpoint and stops. */
  stop(): Promise<void>
}

const RETRY_DELAY_MS = 1000
/**
 * Most events a batch holds, live or in a catch-up or rebuild: a request of
 * 1000 new trackers (2,000 to 3,000 events) is one commit, not three. A
 * batch's events, documents and their JSON live until its commit, in the old
 * generation, which `npm start` lets grow to 256 MB before collecting it.
 */
const BATCH_SIZE = 3000

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

/** Documents a slice of idle work renders views for (a few milliseconds): new events wait for one slice at most. */
const VIEWS_PER_SLICE = 100
/** The span over which the projector's share of time spent on batches is measured. */
const BUSY_WINDOW_MS = 1000
/**
 * Busier than this share of the window, the projector is under a sustained
 * load: views wait for a pause, so the load's next batch does not find it
 * rendering. A quarter, not more: under a stream of single orders every
 * commit is on some request's way to its answer, and the cores the views
 * would take are the requests' too.
 */
const BULK_LOAD_SHARE = 0.25
/** A pause: no batch for this long. */
const QUIET_MS = 250
/** Under a bulk load, one slice this often all the same, so views are filled in the end. */
const SLICE_AT_LEAST_EVERY_MS = 2000
/**
 * Idle with none missing, the projector looks again this often: a rebuild run
 * by another process (`shiplog projections rebuild`) swaps in documents
 * without their views, and no batch of this projector's says so.
 */
export const LOOK_AGAIN_MS = 30_000

/**
 * The projector's idle work: the views of the read models that render them
 * when idle (the orders' full view, which each carrier event would otherwise
 * re-render), one slice at a time, whenever the log has nothing new, the
 * projector is not under a bulk load and the machine has a core to spare
 * (`spare`: a webhook sender or a request thread keeps its core). `batchDone`
 * tells it how long a batch took and that views may be missing.
 */
export function viewFiller(
  projections: readonly Projection[],
  store: ReadStore,
  now = () => performance.now(),
  spare: { open(): boolean } = spareCoreGate(now),
) {
  const filling = projections.filter((p) => p.fillViews !== undefined)
  /** Whether any read model renders views when idle: only then can one be missing. */
  const renders = filling.length > 0
  let missing = renders
  /** The batches of the last window: when each ended and how long it took. */
  const batches: { endedAt: number; ms: number }[] = []
  let lastSliceAt = now()
  const underBulkLoad = (at: number) => {
    while (batches.length > 0 && batches[0]!.endedAt < at - BUSY_WINDOW_MS) batches.shift()
    const last = batches[batches.length - 1]
    if (!last || at - last.endedAt >= QUIET_MS) return false
    return batches.reduce((sum, b) => sum + b.ms, 0) > BULK_LOAD_SHARE * BUSY_WINDOW_MS
  }
  return {
    batchDone(ms: number) {
      batches.push({ endedAt: now(), ms })
      missing = renders
    },
    async fill(): Promise<boolean> {
      const at = now()
      if (!missing && at - lastSliceAt >= LOOK_AGAIN_MS) missing = renders
      if (!missing) return false
      if ((underBulkLoad(at) || !spare.open()) && at - lastSliceAt < SLICE_AT_LEAST_EVERY_MS) return false
      lastSliceAt = at
      let more = false
      for (const p of filling) if ((await p.fillViews!(store, VIEWS_PER_SLICE)) === VIEWS_PER_SLICE) more = true
      missing = more
      return more
    },
  }
}

/**
 * The read models of the projector's second lane, where the read store commits
 * different collections at once (PostgreSQL): while the database writes one
 * lane's commit, the projector's thread prepares the other's batch, instead of
 * each waiting for the other. The two lanes' commits take about as long (public
 * events and trackers against orders and the rest, for new trackers).
 */
export const SECOND_LANE: ReadonlySet<string> = new Set(['public_events', 'trackers', 'webhook_deliveries'])

/** The projections in lanes: two where the store commits them at once, else one. */
export function lanesOf(projections: readonly Projection[], store: Pick<ReadStore, 'concurrentCommits'>) {
  const second = projections.filter((p) => SECOND_LANE.has(p.name))
  const first = projections.filter((p) => !SECOND_LANE.has(p.name))
  return store.concurrentCommits && first.length > 0 && second.length > 0 ? [first, second] : [projections]
}

/** A lane: its projections' checkpoints and idle views, and its batches so far, each begun once the one before committed. */
interface Lane {
  checkpoints: Map<Projection, bigint>
  views: ReturnType<typeof viewFiller>
  done: Promise<void>
  /** The position its projections have all passed. */
  passed: bigint
}

/**
 * Runs the projections live, in their lanes, from their checkpoints. One
 * reader serves every lane; with one lane a batch is read once the one
 * before has committed, with two a lane may be a batch ahead of the other.
 * The position told after a commit is the lowest every lane has passed. A
 * lane that fails stops the reading; every lane then ends its batch in hand,
 * and all resume from their checkpoints.
 */
export async function runProjections(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>,
  projections: readonly Projection[],
  signal: AbortSignal,
  onCommitted?: (position: bigint) => void,
) {
  const lowest = (positions: bigint[]) => positions.reduce((a, b) => (a < b ? a : b))
  const lanes: Lane[] = []
  for (const group of lanesOf(projections, rt.readStore)) {
    const checkpoints = new Map<Projection, bigint>()
    for (const p of group) checkpoints.set(p, (await rt.readStore.checkpoint(p.name)) ?? 0n)
    const passed = lowest([...checkpoints.values()])
    lanes.push({ checkpoints, views: viewFiller(group, rt.readStore), done: Promise.resolve(), passed })
  }
  const after = lowest(lanes.map((lane) => lane.passed))
  const reading = new AbortController()
  const stopReading = () => reading.abort()
  signal.addEventListener('abort', stopReading, { once: true })
  const fillViews = async () => {
    let more = false
    for (const lane of lanes) if (await lane.views.fill()) more = true
    return more
  }
  try {
    // Unfiltered on purpose: every checkpoint must pass every event, so a reader
    // waiting for a position never waits on events a projection ignores. Woken,
    // it reads at once: what is appended while a batch commits makes the next.
    for await (const batch of subscribeToAll(rt.eventStore, {
      after,
      batchSize: BATCH_SIZE,
      pollMs: rt.config.POLL_INTERVAL_MS,
      signal: reading.signal,
      whenCaughtUp: fillViews,
    })) {
      const before = lanes.map((lane) => lane.done)
      for (const lane of lanes) {
        lane.done = lane.done.then(async () => {
          lane.passed = await applyBatch(rt, lane, batch)
          onCommitted?.(lowest(lanes.map((l) => l.passed)))
        })
        lane.done.catch(stopReading)
      }
      await Promise.all(lanes.length === 1 ? lanes.map((lane) => lane.done) : before)
    }
  } finally {
    signal.removeEventListener('abort', stopReading)
    await Promise.allSettled(lanes.map((lane) => lane.done))
  }
  await Promise.all(lanes.map((lane) => lane.done))
}

/**
 * A lane's share of a batch in one commit with its projections' checkpoints:
 * each read model reads only its own collection, and an index page that
 * several documents touch is written once. Returns the batch's last position.
 */
async function applyBatch(
  rt: Pick<Runtime, 'readStore'>,
  lane: Pick<Lane, 'checkpoints' | 'views'>,
  batch: readonly RecordedEvent[],
) {
  const startedAt = performance.now()
  const last = batch[batch.length - 1]!.position
  const advanced: Projection[] = []
  const writes: (DocumentWrite | DocumentAppend)[] = []
  for (const [projection, checkpoint] of lane.checkpoints) {
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
    for (const projection of advanced) lane.checkpoints.set(projection, last)
    lane.views.batchDone(performance.now() - startedAt)
  }
  return last
}

/** Applies every event already in the store to one projection, then returns (the CLI's catch-up). */
export async function catchUp(
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  projection: Projection,
  onBatch?: (events: number, position: bigint) => void,
) {
  const after = await rt.readStore.checkpoint(projection.name)
  await applyLog(rt, projection, after, [projection.name], onBatch)
}

/**
 * Applies the log after `after` to a projection, moving the named checkpoints
 * (none for a rebuild's part) with each batch; returns the last position
 * applied. With `until`, it also returns between batches once that holds,
 * letting other work (a thread's message) run before each look.
 */
async function applyLog(
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  projection: Projection,
  after: bigint | undefined,
  checkpoints: readonly string[],
  onBatch?: (events: number, position: bigint) => void,
  until?: () => boolean,
) {
  for (;;) {
    if (until) {
      // The store's calls settle as microtasks: without this, no message would be read until the log ends.
      await setImmediate()
      if (until()) return after
    }
    const batch = await rt.eventStore.readAll({ after, limit: BATCH_SIZE })
    if (batch.length === 0) return after
    after = batch[batch.length - 1]!.position
    await rt.readStore.commit(checkpoints, await projection.apply(batch, rt.readStore), after)
    onBatch?.(batch.length, after)
  }
}

/** Threads a rebuild shares its work between: one a core, at most two. */
const REBUILD_PARTS = Math.max(1, Math.min(2, availableParallelism()))

const shadowName = (projection: Projection) => `${projection.name}__rebuild`

/**
 * Rebuilds a projection from position 0 into a shadow collection while the
 * live one keeps serving, then swaps it in atomically once it has caught up
 * with the live projection.
 *
 * Folding, rendering and serialising documents is single-threaded work, so
 * the log is first replayed in parts, a thread each (replayInParts); no
 * checkpoint moves meanwhile (a rebuild that stops starts over). The shadow
 * gets its query indexes, then catches up as a whole from where the earliest
 * part stopped: a document skips the events it already holds.
 */
export async function rebuildProjection(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>,
  projection: Projection,
  onBatch?: (events: number, position: bigint) => void,
) {
  const shadow = projection.retarget(
    shadowName(projection),
    await rt.readStore.prepareRebuild(projection.collection, shadowName(projection)),
  )
  const helpers = Array.from({ length: REBUILD_PARTS - 1 }, (_, i) =>
    partThread(rt.config, projection, i + 1, REBUILD_PARTS),
  )
  const reached = await replayInParts(rt, shadow, helpers, onBatch)
  const earliest = reached.reduce((a, b) => (a === undefined || b === undefined ? undefined : a < b ? a : b))
  if (earliest !== undefined) await rt.readStore.commit([shadow.name], [], earliest)
  await rt.readStore.indexRebuild(projection.collection)
  do await catchUp(rt, shadow, onBatch)
  while (!(await rt.readStore.completeRebuild(projection.collection, projection.name, shadow.name)))
}

/** Another thread's part of a rebuild's first replay, as the calling thread drives it. */
export interface PartHelper {
  /** Started up and waiting to be told where to start. */
  readonly ready: boolean
  /** Replays its part of the log after `after` (undefined: from the start); resolves with the last position it applied. */
  replayAfter(after: bigint | undefined): Promise<bigint | undefined>
  /** Not needed after all: stops it before it has written anything. */
  cancel(): Promise<void>
}

/**
 * A rebuild's first replay: the calling thread replays the whole log until
 * every helper has started up (loading a thread's modules takes a few hundred
 * milliseconds, which would otherwise be its part's delay), then its own part
 * of the rest while each helper replays its own from the same position: the
 * documents of a helper's part written so far are in the shadow, and it
 * folds the events after them. A log that ends first is all this thread's.
 * Returns the last position each part applied.
 */
export async function replayInParts(
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  shadow: Projection,
  helpers: readonly PartHelper[],
  onBatch?: (events: number, position: bigint) => void,
): Promise<(bigint | undefined)[]> {
  const allReady = () => helpers.every((h) => h.ready)
  const handOver = await applyLog(rt, shadow, undefined, [], onBatch, allReady)
  if (!allReady()) {
    await Promise.all(helpers.map((h) => h.cancel()))
    return [handOver]
  }
  return Promise.all([
    replayPart(rt, shadow, 0, helpers.length + 1, handOver, onBatch),
    ...helpers.map((h) => h.replayAfter(handOver)),
  ])
}

/** One part of a rebuild's first replay, after `after` (see replayInParts); returns the last position it applied. */
export const replayPart = (
  rt: Pick<Runtime, 'eventStore' | 'readStore'>,
  shadow: Projection,
  part: number,
  parts: number,
  after?: bigint,
  onBatch?: (events: number, position: bigint) => void,
) => applyLog(rt, shadow.part(part, parts), after, [], onBatch)

export interface RebuildPartData {
  main: 'rebuild-part-main'
  config: Config
  projection: string
  part: number
  parts: number
}

/** What a part's thread says: that it has started up, then how far it got. */
export type PartMessage = { ready: true } | { reached: string | null }

/** A part of a rebuild in a worker thread of its own, on its own connections to the stores. */
function partThread(config: Config, projection: Projection, part: number, parts: number): PartHelper {
  const data: RebuildPartData = { main: 'rebuild-part-main', config, projection: projection.name, part, parts }
  const worker = new Worker(new URL('./thread-entry.mjs', import.meta.url), { workerData: data })
  let ready = false
  const ended = new Promise<never>((_, reject) => {
    worker.once('error', reject)
    worker.once('exit', (code) =>
      reject(new Error(`rebuild part ${part} ended (exit code ${code}) before it finished`)),
    )
  })
  // Seen by replayAfter; a thread that fails before it is ready leaves its part to the calling thread.
  ended.catch(() => {})
  worker.once('message', () => {
    ready = true
  })
  return {
    get ready() {
      return ready
    },
    replayAfter(after) {
      const reached = new Promise<bigint | undefined>((resolve) =>
        worker.once('message', (message: PartMessage) => {
          if ('reached' in message) resolve(message.reached === null ? undefined : BigInt(message.reached))
        }),
      )
      worker.postMessage({ after: after?.toString() ?? null })
      return Promise.race([reached, ended])
    },
    async cancel() {
      await worker.terminate()
    },
  }
}

/** The shadow of a rebuild the calling thread prepared, as a part's thread writes to it. */
export const joinedShadow = (rt: Pick<Runtime, 'readStore'>, projection: Projection) =>
  projection.retarget(shadowName(projection), rt.readStore.joinRebuild(projection.collection))
