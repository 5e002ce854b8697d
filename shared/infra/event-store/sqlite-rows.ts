import { StoredEvent } from './stored-event.ts'
import type { RecordedEvent, StreamRead } from './port.ts'

/*
 * The embedded log's rows as they are read: a row holds one event, or the
 * several of one append to one stream (`parts` says where each is), and every
 * read opens them up into the events asked for.
 */

/**
 * A row of a stream read: its stream is the one asked for, not read back.
 * Without that column and `recorded_at` (which repeats the metadata's
 * `recordedAt`, for SQL run on the file), a read of many streams is cheaper.
 * Rows are read as arrays (better-sqlite3's raw mode), cheaper to make than
 * objects. `parts` is set on a row holding several events (see `Parts`).
 * A read of several streams or of the log adds a column after these.
 */
export type StreamRow = [
  position: number | bigint,
  id: string,
  revision: number,
  type: string,
  data: string,
  metadata: string,
  parts: string | null,
]
const streamRowColumns = ['position', 'id', 'revision', 'type', 'data', 'metadata', 'parts']
/** Where a log row's stream, or a several-stream read's request, comes: after a stream row's columns. */
export const AFTER_STREAM_ROW = 7
/** A row of the log at large: its stream is the last column. */
export type LogRow = [...StreamRow, stream: string]
/** A row of a several-stream read: the read it answers is the last column. */
export type ReadsRow = [...StreamRow, request: number]
/** The same, in a query where the events table is `e`. */
export const STREAM_ROW = streamRowColumns.map((c) => `e.${c}`).join(', ')
/** The columns of a row read from the log at large. */
export const ROW = [...streamRowColumns, 'stream'].join(', ')

/**
 * The events of one append to one stream, when it has several, are one row:
 * a new tracker's order, notification and tracker cost one insert into the
 * log's three b-trees, not four. Each keeps its own id, type, revision and
 * position: the row's revision and position are its last event's, and the
 * ones before it take the numbers just below, which no other row holds
 * (positions are given explicitly, leaving room). `data` is a JSON array of
 * the events' data, and `parts` a JSON array of `[id, type, start, end]`:
 * where each event's data is in that text, so an event is still parsed only
 * when read. The metadata is the append's, shared by its events. Rows of one
 * event, all rows written before, have no parts.
 */
export type Parts = [id: string, type: string, start: number, end: number][]

/**
 * How a type is written in a row's `parts` (a JSON string): a row whose parts
 * do not contain it holds no event of that type. Another field matching it
 * only makes the row read and its events checked.
 */
const partsToken = (type: string) => JSON.stringify(type)

/** A beginning shorter than this (the quote and a few letters) would match most rows: each type is searched for. */
const SHORTEST_SHARED_TOKEN = 8

/**
 * What a filtered read searches each row's parts for: the types' tokens, or
 * their shared beginning when they have one (a webhook endpoint's events all
 * begin `"WebhookEndpoint`), each row then searched once instead of once a
 * type.
 */
export function partsTokens(types: readonly string[]): string[] {
  const tokens = types.map(partsToken)
  if (tokens.length < 2) return tokens
  let shared = tokens[0]!
  for (const token of tokens) while (!token.startsWith(shared)) shared = shared.slice(0, -1)
  return shared.length >= SHORTEST_SHARED_TOKEN ? [shared] : tokens
}

/** The type column of a row of several events: each has its own in `parts`. */
export const SEVERAL_EVENTS = '$events'

/**
 * Each event of a stored row, as `make` builds it from its position,
 * revision, id, type and data text; only those `keep` accepts.
 */
export function eventsOfRow<E>(
  position: number | bigint,
  revision: number,
  id: string,
  type: string,
  data: string,
  parts: string | null,
  make: (position: bigint, revision: number, id: string, type: string, json: string) => E,
  keep: (position: bigint, revision: number, type: string) => boolean,
  into: E[],
) {
  const last = BigInt(position)
  if (parts === null) {
    if (keep(last, revision, type)) into.push(make(last, revision, id, type, data))
    return
  }
  const each = JSON.parse(parts) as Parts
  const first = each.length - 1
  for (let i = 0; i < each.length; i++) {
    const [eventId, eventType, start, end] = each[i]!
    const at = last - BigInt(first - i)
    const eventRevision = revision - first + i
    if (keep(at, eventRevision, eventType))
      into.push(make(at, eventRevision, eventId, eventType, data.slice(start, end)))
  }
}

/**
 * Rows of a several-stream read, grouped by the read they answer, each
 * row's events from the read's revision on. Each stream's rows come in
 * revision order from the index (checked; sorted if not).
 */
export function byRead<R, E extends { revision: number }>(
  reads: readonly StreamRead[],
  rows: readonly R[],
  readOf: (row: R) => number,
  eventsOf: (row: R, from: number, into: E[]) => void,
): E[][] {
  const results: E[][] = Array.from({ length: reads.length }, () => [])
  let ordered = true
  for (const row of rows) {
    const read = readOf(row)
    const events = results[read]!
    const before = events.length
    eventsOf(row, reads[read]!.fromRevision ?? 0, events)
    if (before > 0 && events.length > before && events[before - 1]!.revision > events[before]!.revision) ordered = false
  }
  if (!ordered) for (const events of results) events.sort((a, b) => a.revision - b.revision)
  return results
}

/** Each event of a row read from a stream (its revision at least `from`), as a recorded event. */
export function streamEvents(
  [position, id, revision, type, data, metadata, parts]: StreamRow | LogRow | ReadsRow,
  stream: string,
  keep: (position: bigint, revision: number, type: string) => boolean,
  into: RecordedEvent[],
) {
  eventsOfRow(
    position,
    revision,
    id,
    type,
    data,
    parts,
    (at, eventRevision, eventId, eventType, json) =>
      new StoredEvent(at, eventRevision, eventId, eventType, json, metadata, stream),
    keep,
    into,
  )
}

export const fromRevision = (from: number) => (_position: bigint, revision: number) => revision >= from

/** A row of `readStreamsToFold`: the read it answers, then the event's revision, position, type, data and parts. */
export type FoldRow = [number, number, number | bigint, string, string, string | null]

/** Several stream reads as the one JSON parameter of a statement. */
export const streamReads = (reads: readonly StreamRead[]) =>
  JSON.stringify(reads.map((r) => [r.stream, r.fromRevision ?? 0]))
