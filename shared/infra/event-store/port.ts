/**
 * The EventStore port. Streams are named `<category>-<id>`; revisions count
 * from 0 within a stream; positions order every event of the store totally
 * (they may have gaps). Every adapter honours exactly these semantics, which
 * the contract suite in tests/contract checks.
 */
import { ConcurrencyError } from '../../domain/errors.ts'

export type Position = bigint

/** Where the command that wrote an event came from: a request, a job, a reaction to the log, or the operator's CLI. */
export type CommandSource = 'api' | 'job' | 'reaction' | 'cli' | 'console'

export interface EventMetadata {
  accountId: number
  /** What caused the event: a request's id, `job_<id>`, `poll_<tracker>`, `email_<payload>`, … */
  correlationId: string
  /** Absent on events recorded before the source was kept. */
  source?: CommandSource
  /** Id of the API key that made the request; never the key itself. */
  keyId?: string
  /** When the service recorded the event, Unix milliseconds. */
  recordedAt: number
}

export interface NewEvent<T extends string = string, D = unknown> {
  /** UUID; a retried append with the same ids writes nothing new. */
  id: string
  type: T
  data: D
  metadata: EventMetadata
}

export interface RecordedEvent<T extends string = string, D = unknown> extends NewEvent<T, D> {
  stream: string
  revision: number
  position: Position
  /**
   * The data as the store holds it, JSON text, where it does: a read model
   * that keeps the event copies it instead of serialising the data again.
   */
  readonly dataJson?: string
}

/** `no_stream` / `stream_exists` / `any`, or the revision of the stream's last event. */
export type ExpectedState = 'any' | 'no_stream' | 'stream_exists' | number

/** The expected state of an append after reading a stream up to `revision` (-1: nothing read, no stream). */
export const expectedAfter = (revision: number): ExpectedState => (revision >= 0 ? revision : 'no_stream')

/** Whether a stream at `current` (-1: none) is as an append expects it. */
export const isExpected = (expected: ExpectedState, current: number) =>
  expected === 'any' ||
  (expected === 'no_stream' && current === -1) ||
  (expected === 'stream_exists' && current >= 0) ||
  expected === current

/** The conflict of an append whose stream is at `current` (-1: none), not where it expected. */
export const conflictOf = (stream: string, expected: ExpectedState, current: number) =>
  new ConcurrencyError(
    stream,
    typeof expected === 'number' ? `revision ${expected}` : expected,
    current === -1 ? 'no stream' : `revision ${current}`,
  )

/**
 * A retried append: where each of its events was found stored (undefined: not
 * stored). All of them, in its stream, answer where the last one is; anything
 * else is another append reusing ids, a conflict.
 */
export function retriedAppend(
  stream: string,
  found: readonly ({ stream: string; revision: number; position: number | bigint | string } | undefined)[],
) {
  if (found.length === 0 || found.some((f) => !f || f.stream !== stream)) {
    throw new ConcurrencyError(stream, 'a retry of the same events', 'a different set of events')
  }
  const last = found[found.length - 1]!
  return { revision: last.revision, position: BigInt(last.position) }
}

export interface AppendRequest {
  stream: string
  events: NewEvent[]
  expected: ExpectedState
  /**
   * The stream's folded state after these events, kept where the store keeps
   * snapshots (`readSnapshots`); only with an exact expected state (a revision
   * or `no_stream`), the one the state was folded from.
   */
  snapshot?: { version: string; state: unknown }
}

/** A stream's state as a fold left it after its event at `revision` (and `position`). */
export interface Snapshot {
  revision: number
  position: Position
  state: unknown
}

export interface AppendResult {
  /** Commit position of the last event written (or found, on an idempotent retry). */
  position: Position
  /** Revision of each stream's last event after the append, in request order. */
  revisions: number[]
}

/** One stream of a `readStreams`, from `fromRevision` (default 0). */
export interface StreamRead {
  stream: string
  fromRevision?: number
}

/** What folding a stream reads of each event: its type and data, its revision and its position. */
export type EventToFold = Pick<RecordedEvent, 'type' | 'data' | 'revision' | 'position'>

export interface ReadAllOptions {
  /** Exclusive: only events after this position. Omitted means from the start. */
  after?: Position
  /** Only these event types. */
  types?: readonly string[]
  limit: number
}

export interface EventStore {
  readonly kind: 'sqlite' | 'kurrentdb' | 'postgres'
  /**
   * Appends to several streams as one atomic unit: every stream's expected
   * state must hold or nothing is written and a ConcurrencyError is thrown.
   * Each stream's events of one append follow one another in the log, no
   * other event between them (a reaction reading the log relies on it).
   */
  append(requests: AppendRequest[]): Promise<AppendResult>
  /** A stream's events in revision order, from `fromRevision` (default 0); empty when the stream does not exist. */
  readStream(stream: string, fromRevision?: number): Promise<RecordedEvent[]>
  /**
   * Several streams at once, each read as `readStream` reads it, answered in
   * request order: a batch touching a thousand streams costs one round trip
   * where the store allows it.
   */
  readStreams(reads: readonly StreamRead[]): Promise<RecordedEvent[][]>
  /**
   * The same events, with only what a fold reads: the write side loads a
   * thousand orders a batch, and their ids and metadata are a third of what
   * the store would read back for nothing.
   */
  readStreamsToFold(reads: readonly StreamRead[]): Promise<EventToFold[][]>
  /**
   * Each stream's latest snapshot of this version, in request order
   * (undefined: none). A store that keeps none leaves this out and ignores
   * the snapshots appends carry: a fold then reads the stream from its start.
   */
  readSnapshots?(streams: readonly string[], version: string): Promise<(Snapshot | undefined)[]>
  /** A page of the global log in position order. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>
  /** Position of the newest event in the store, 0n when empty. */
  head(): Promise<Position>
  /** Called after this process appends, so in-process subscribers wake at once. */
  onAppend(listener: () => void): () => void
  close(): Promise<void>
}
