import { createHash } from 'node:crypto'
import { eventId } from '../shared/infra/id-generator.ts'
import {
  type AppendRequest,
  type CommandSource,
  type EventMetadata,
  expectedAfter,
  type NewEvent,
  type Position,
} from '../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../shared/infra/event-store/recorded.ts'
import { isConcurrencyError, ShiplogError } from '../shared/domain/errors.ts'
import { assertValidEvent, type DomainEvent } from '../shared/domain/events/index.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'
import { waitForProjections } from '../shared/infra/read-store/wait-for-projections.ts'
import type { AccountDoc } from '../projectors/accounts/account.ts'
import { projections } from '../projectors/all-projections.ts'

/** What a command decided: the appends to make atomically, and the response they earn. */
export interface CommandPlan {
  appends: AppendRequest[]
  status: number
  body: unknown
  /** Position of the newest event the decision read: the floor for read-your-writes when nothing is appended. */
  readPosition: Position
  /** Told, after the append succeeded, each written stream's new revision and the commit position. */
  onAppended?: (revisions: ReadonlyMap<string, number>, position: Position) => void
}

/** Who asks for a command, from where: an API request, a job, or a reaction to the log. */
export interface CommandRequest {
  source: CommandSource
  /** The account the command acts for. */
  account: AccountDoc
  /** What caused it, recorded on its events: a request's id, `job_<id>`, `poll_<tracker>`, … */
  correlationId: string
  /** The id of the API key that sent it, for a request. */
  keyId?: string
  /** A request's Idempotency-Key and what it was sent with: a repeat gets the first answer back. */
  idempotency?: { key: string; method: string; path: string; body: unknown }
}

export interface CommandResponse {
  status: number
  body: unknown
  /** Commit position after which the command's effects are visible. */
  position: Position
}

/** Bounded retries of an optimistic append that met a concurrent change. */
const MAX_ATTEMPTS = 8

export const metadataFor = (request: CommandRequest, recordedAt: number): EventMetadata => ({
  accountId: request.account.id,
  correlationId: request.correlationId,
  source: request.source,
  ...(request.keyId === undefined ? {} : { keyId: request.keyId }),
  recordedAt,
})

/**
 * Gives decided events their ids and metadata, checking each against its
 * schema, unless the caller says `prechecked`: its events are built only of
 * values its request schema or a checker of its own already held to the
 * schema's rules, which a test holds it to (the pickup point import, tracker
 * and order upserts and carrier events: zod's parse copies every event, a
 * batch's thousands of them, and an order's whole document).
 */
export function toNewEvents(
  events: readonly DomainEvent[],
  metadata: EventMetadata,
  { prechecked = false } = {},
): NewEvent[] {
  return events.map((e) => {
    if (!prechecked) assertValidEvent(e)
    return { id: eventId(metadata.recordedAt), type: e.type, data: e.data, metadata }
  })
}

/**
 * Runs a command: plan (read streams, decide), then append everything in one
 * atomic append with the expected revisions the plan read. A concurrent change
 * re-plans on fresh state, a bounded number of times, then answers 409: the
 * client's data is never half written and never silently dropped.
 *
 * With an Idempotency-Key the response is recorded in the same atomic append,
 * and a repeat of the request gets that response back with nothing appended.
 */
export async function executeCommand(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'config' | 'projections' | 'observeWrite'>,
  request: CommandRequest,
  plan: () => Promise<CommandPlan>,
): Promise<CommandResponse> {
  const record = request.idempotency ? idempotencyRecord(request.account.id, request.idempotency) : undefined
  // Wall time, not rt.clock: a test's clock stands still.
  const decidedAt = performance.now()
  for (let attempt = 1; ; attempt++) {
    if (record) {
      const previous = await replay(rt, record)
      if (previous) return previous
    }
    let answer: CommandResponse & { appended: boolean }
    try {
      answer = await decideAndAppend(rt, request, record, plan)
    } catch (error) {
      if (!isConcurrencyError(error)) throw error
      if (attempt >= MAX_ATTEMPTS) {
        throw new ShiplogError(
          'SHIPLOG_ERR_CONFLICT',
          'Too many concurrent changes to the same records; retry the request',
        )
      }
      continue
    }
    if (answer.appended) await untilVisible(rt, answer.position, decidedAt)
    return { status: answer.status, body: answer.body, position: answer.position }
  }
}

/**
 * One attempt: plan, then append what it decided (with the idempotency
 * record), giving the answer it earns. A function of its own so that the
 * plan, its events and the states it decided are garbage once it returns: a
 * batch waiting for its projection holds only its answer, and a
 * young-generation collection during the wait has that much less to copy.
 */
async function decideAndAppend(
  rt: Pick<Runtime, 'eventStore' | 'clock'>,
  request: CommandRequest,
  record: IdempotencyRecord | undefined,
  plan: () => Promise<CommandPlan>,
): Promise<CommandResponse & { appended: boolean }> {
  const decided = await plan()
  const appends = decided.appends.filter((a) => a.events.length > 0)
  const now = rt.clock.nowMs()
  if (record) {
    const completed: DomainEvent = {
      type: 'IdempotentRequestCompleted',
      data: {
        method: record.method,
        path: record.path,
        body_hash: record.bodyHash,
        status: decided.status,
        body: decided.body,
        at: Math.floor(now / 1000),
      },
    }
    appends.push({
      stream: record.stream,
      expected: 'no_stream',
      events: toNewEvents([completed], metadataFor(request, now)),
    })
  }
  if (appends.length === 0)
    return { status: decided.status, body: decided.body, position: decided.readPosition, appended: false }
  const { position, revisions } = await rt.eventStore.append(appends)
  decided.onAppended?.(new Map(appends.map((a, i) => [a.stream, revisions[i]!])), position)
  return { status: decided.status, body: decided.body, position, appended: true }
}

/**
 * A command decided on one aggregate's stream, through the command core
 * (Idempotency-Key, expected revision, visibility), answered from the
 * stream's events with those decided: the API's and the console's writes to
 * a webhook endpoint, a connection, go through here alike.
 */
export function changeStream<E extends DomainEvent, S>(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'config' | 'projections' | 'observeWrite'>,
  command: CommandRequest,
  change: {
    stream: string
    evolve: (state: S | undefined, event: E) => S
    decide: (at: number, state: S | undefined) => E[]
    answer: (all: E[]) => { status: number; body: unknown }
  },
): Promise<CommandResponse> {
  return executeCommand(rt, command, async () => {
    const recorded = await rt.eventStore.readStream(change.stream)
    const history = asDomainEvents<E>(recorded)
    const now = rt.clock.now()
    const events = change.decide(toUnixSeconds(now), history.reduce(change.evolve, undefined as S | undefined))
    return {
      appends: [
        {
          stream: change.stream,
          expected: expectedAfter(recorded.length - 1),
          events: toNewEvents(events, metadataFor(command, now.getTime())),
        },
      ],
      ...change.answer([...history, ...events]),
      readPosition: recorded.at(-1)?.position ?? 0n,
    }
  })
}

/**
 * A reaction's decision on one stream from that stream's own history: read
 * and handed to the decider, whose events are appended at the revision read.
 * A concurrent change decides again on the longer history, a bounded number
 * of times. The position of the append, or undefined when nothing was decided.
 */
export async function decideOnStream<E extends DomainEvent>(
  rt: Pick<Runtime, 'eventStore'>,
  stream: string,
  decide: (history: E[]) => DomainEvent[],
  metadata: () => EventMetadata,
): Promise<Position | undefined> {
  for (let attempt = 1; ; attempt++) {
    const recorded = await rt.eventStore.readStream(stream)
    const events = decide(asDomainEvents<E>(recorded))
    if (events.length === 0) return undefined
    try {
      const append = { stream, expected: expectedAfter(recorded.length - 1), events: toNewEvents(events, metadata()) }
      return (await rt.eventStore.append([append])).position
    } catch (error) {
      if (!isConcurrencyError(error) || attempt >= MAX_ATTEMPTS) throw error
    }
  }
}

const projectionNames = projections.map((p) => p.name)

/**
 * Read-your-writes by default: with SHIPLOG_WRITE_VISIBILITY=projected a write
 * answers once the read models have passed it (bounded), so a client that
 * never sends X-Shiplog-Position back still reads what it wrote. The write's
 * time, from `decidedAt` (performance.now() when its decision began) until
 * stored and then until visible, is told to rt.observeWrite.
 */
export async function untilVisible(
  rt: Pick<Runtime, 'readStore' | 'config' | 'projections' | 'observeWrite'>,
  position: Position,
  decidedAt: number,
) {
  const stored = performance.now()
  const storedSeconds = (stored - decidedAt) / 1000
  if (rt.config.SHIPLOG_WRITE_VISIBILITY !== 'projected') {
    rt.observeWrite?.({ storedSeconds })
    return
  }
  const wait = rt.config.SHIPLOG_WRITE_VISIBILITY_WAIT_MS
  const reached = await waitForProjections(rt.readStore, projectionNames, position, wait, rt.projections)
  rt.observeWrite?.({ storedSeconds, visible: { seconds: (performance.now() - stored) / 1000, reached } })
}

interface IdempotencyRecord {
  stream: string
  method: string
  path: string
  bodyHash: string
}

function idempotencyRecord(
  accountId: number,
  { key, method, path, body }: NonNullable<CommandRequest['idempotency']>,
): IdempotencyRecord {
  const keyHash = createHash('sha256').update(key).digest('hex').slice(0, 32)
  return {
    stream: `idempotency-${accountId}_${keyHash}`,
    method,
    path,
    bodyHash: createHash('sha256')
      .update(JSON.stringify(body ?? null))
      .digest('hex'),
  }
}

async function replay(
  rt: Pick<Runtime, 'eventStore'>,
  record: IdempotencyRecord,
): Promise<CommandResponse | undefined> {
  const [first] = await rt.eventStore.readStream(record.stream)
  if (!first) return undefined
  const data = first.data as { method: string; path: string; body_hash: string; status: number; body: unknown }
  if (data.method !== record.method || data.path !== record.path) {
    throw new ShiplogError(
      'SHIPLOG_ERR_UNPROCESSABLE',
      `This Idempotency-Key was already used with another request (${data.method} ${data.path})`,
    )
  }
  if (data.body_hash !== record.bodyHash) {
    throw new ShiplogError(
      'SHIPLOG_ERR_UNPROCESSABLE',
      'This Idempotency-Key was already used with a different request body',
    )
  }
  // The recorded event sits right after the request's own events, so its position covers them.
  return { status: data.status, body: data.body, position: first.position }
}
