import { resolve } from 'node:path'
import { BroadcastChannel } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { applyWalCheckpoints, type WalCheckpoints } from '../sqlite/checkpoints.ts'
import type {
  AppendRequest,
  AppendResult,
  EventMetadata,
  EventStore,
  EventToFold,
  NewEvent,
  RecordedEvent,
  Snapshot,
  StreamRead,
} from './port.ts'
import { conflictOf, isExpected, retriedAppend } from './port.ts'
import { RecentAppends } from './recent-appends.ts'

/**
 * A row of a stream read: its stream is the one asked for, not read back.
 * Without that column and `recorded_at` (which repeats the metadata's
 * `recordedAt`, for SQL run on the file), a read of many streams is cheaper.
 * Rows are read as arrays (better-sqlite3's raw mode), cheaper to make than
 * objects. `parts` is set on a row holding several events (see `Parts`).
 * A read of several streams or of the log adds a column after these.
 */
type StreamRow = [
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
const AFTER_STREAM_ROW = 7
/** A row of the log at large: its stream is the last column. */
type LogRow = [...StreamRow, stream: string]
/** A row of a several-stream read: the read it answers is the last column. */
type ReadsRow = [...StreamRow, request: number]
/** The same, in a query where the events table is `e`. */
const STREAM_ROW = streamRowColumns.map((c) => `e.${c}`).join(', ')
/** The columns of a row read from the log at large. */
const ROW = [...streamRowColumns, 'stream'].join(', ')

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
type Parts = [id: string, type: string, start: number, end: number][]

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
function partsTokens(types: readonly string[]): string[] {
  const tokens = types.map(partsToken)
  if (tokens.length < 2) return tokens
  let shared = tokens[0]!
  for (const token of tokens) while (!token.startsWith(shared)) shared = shared.slice(0, -1)
  return shared.length >= SHORTEST_SHARED_TOKEN ? [shared] : tokens
}

/** The type column of a row of several events: each has its own in `parts`. */
const SEVERAL_EVENTS = '$events'

/**
 * Each event of a stored row, as `make` builds it from its position,
 * revision, id, type and data text; only those `keep` accepts.
 */
function eventsOfRow<E>(
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
 * Data and metadata are parsed on first access: a projector skips most events
 * of the log by type alone and never pays for parsing them. A class, not an
 * object with getters, so thousands of events a batch share one shape and
 * allocate no closures.
 */
class EventRow implements EventToFold {
  readonly revision: number
  readonly position: bigint
  readonly type: string
  #json: string
  #data: unknown

  constructor(revision: number, position: bigint, type: string, json: string) {
    this.revision = revision
    this.position = position
    this.type = type
    this.#json = json
  }

  get data(): unknown {
    this.#data ??= JSON.parse(this.#json)
    return this.#data
  }

  /** Kept beside the parsed data: the orders read model copies it into a document's pending events. */
  get dataJson(): string {
    return this.#json
  }
}

class StoredEvent extends EventRow implements RecordedEvent {
  readonly id: string
  readonly stream: string
  #metadataJson: string
  #metadata: EventMetadata | undefined

  constructor(
    position: bigint,
    revision: number,
    id: string,
    type: string,
    data: string,
    metadata: string,
    stream: string,
  ) {
    super(revision, position, type, data)
    this.id = id
    this.stream = stream
    this.#metadataJson = metadata
  }

  get metadata(): EventMetadata {
    this.#metadata ??= parseMetadata(this.#metadataJson)
    return this.#metadata
  }
}

/**
 * Rows of a several-stream read, grouped by the read they answer, each
 * row's events from the read's revision on. Each stream's rows come in
 * revision order from the index (checked; sorted if not).
 */
function byRead<R, E extends { revision: number }>(
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

/**
 * A command stamps all its events with the same metadata: a projector reading
 * a 3000-event request parses it once, and the events share the (read-only)
 * result.
 */
let lastMetadata: { json: string; parsed: EventMetadata } | undefined
function parseMetadata(json: string): EventMetadata {
  if (lastMetadata?.json !== json) lastMetadata = { json, parsed: JSON.parse(json) as EventMetadata }
  return lastMetadata.parsed
}

/** Each event of a row read from a stream (its revision at least `from`), as a recorded event. */
function streamEvents(
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

const fromRevision = (from: number) => (_position: bigint, revision: number) => revision >= from

/** A row of `readStreamsToFold`: the read it answers, then the event's revision, position, type, data and parts. */
type FoldRow = [number, number, number | bigint, string, string, string | null]

/** Several stream reads as the one JSON parameter of a statement. */
const streamReads = (reads: readonly StreamRead[]) => JSON.stringify(reads.map((r) => [r.stream, r.fromRevision ?? 0]))

/** The log's table: the storage benchmark (bench/compare.ts) appends raw rows to the same one. */
export const EVENTS_TABLE = `
  CREATE TABLE IF NOT EXISTS events (
    position    INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT    NOT NULL UNIQUE,
    stream      TEXT    NOT NULL,
    revision    INTEGER NOT NULL,
    type        TEXT    NOT NULL,
    data        TEXT    NOT NULL,
    metadata    TEXT    NOT NULL,
    recorded_at INTEGER NOT NULL,
    parts       TEXT,
    UNIQUE (stream, revision)
  )`
/** Every event of the log, one row each, for SQL run on the file: the rows of several events opened up. */
const EVENT_LOG_VIEW = `
  CREATE VIEW IF NOT EXISTS event_log AS
    SELECT position, id, stream, revision, type, data, metadata, recorded_at FROM events WHERE parts IS NULL
    UNION ALL
    SELECT e.position - json_array_length(e.parts) + 1 + p.key, json_extract(p.value, '$[0]'), e.stream,
      e.revision - json_array_length(e.parts) + 1 + p.key, json_extract(p.value, '$[1]'),
      json_extract(e.data, '$[' || p.key || ']'), e.metadata, e.recorded_at
    FROM events e, json_each(e.parts) p WHERE e.parts IS NOT NULL`

export const INSERT_EVENT =
  'INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)'

/**
 * The latest snapshot of each stream that has one: a cache of folds beside the
 * log, written in the append that reaches it, never a source of truth (a
 * version the code no longer reads is ignored, and the log is all there is).
 */
const SNAPSHOTS_TABLE = `
  CREATE TABLE IF NOT EXISTS snapshots (
    stream   TEXT    PRIMARY KEY,
    version  TEXT    NOT NULL,
    revision INTEGER NOT NULL,
    position INTEGER NOT NULL,
    state    TEXT    NOT NULL
  ) WITHOUT ROWID`

/** A new file's settings, before the table exists: see createSqliteEventStore. */
export function openEventsFile(file: string) {
  const db = new Database(file)
  // 16 KiB pages (on a new file, before WAL): an append inserts into the
  // (stream, revision) index at random places, and bigger pages mean fewer
  // pages split and rewritten to the WAL per event.
  db.pragma('page_size = 16384')
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 10000')
  return db
}

/**
 * Embedded event store: one SQLite file in WAL mode, so the CLI and a running
 * server can share it. The rowid is the global position (gap-free here, but
 * callers must not rely on that: KurrentDB positions have gaps).
 */
export function createSqliteEventStore(file: string, walCheckpoints?: WalCheckpoints): EventStore {
  const db = openEventsFile(file)
  applyWalCheckpoints(db, walCheckpoints)
  // No memory map: appends touch index pages all over the file, and mapped pages
  // would count in the process's memory for no faster replay.
  db.exec(EVENTS_TABLE)
  // A log written before rows could hold several events gains the column; its rows are read as they are.
  const columns = db.prepare('PRAGMA table_info(events)').all() as { name: string }[]
  if (!columns.some((c) => c.name === 'parts')) db.exec('ALTER TABLE events ADD COLUMN parts TEXT')
  db.exec(EVENT_LOG_VIEW)
  db.exec(SNAPSHOTS_TABLE)
  const statements = eventStatements(db)
  const appendAll = db.transaction((requests: AppendRequest[], rows: LogRow[]) =>
    appendRequests(statements, requests, rows),
  )
  const recent = new RecentAppends<LogRow>(rowSpan, RECENT_EVENTS)
  const appends = appendSignal(file, (rows) => recent.add(rows))

  return {
    kind: 'sqlite',
    async append(requests) {
      const rows: LogRow[] = []
      const result = appendAll.immediate(requests, rows)
      appends.wake(rows)
      return result
    },
    async readStream(stream, from = 0) {
      const events: RecordedEvent[] = []
      const keep = fromRevision(from)
      for (const row of statements.readStream.all(stream, from) as StreamRow[]) streamEvents(row, stream, keep, events)
      return events
    },
    async readStreams(reads) {
      return byRead(
        reads,
        statements.readStreams.all(streamReads(reads)) as ReadsRow[],
        (row) => row[AFTER_STREAM_ROW],
        (row, from, into: RecordedEvent[]) =>
          streamEvents(row, reads[row[AFTER_STREAM_ROW]]!.stream, fromRevision(from), into),
      )
    },
    async readStreamsToFold(reads) {
      return byRead(
        reads,
        statements.readStreamsToFold.all(streamReads(reads)) as unknown as FoldRow[],
        (row) => row[0],
        ([, revision, position, type, data, parts], from, into: EventToFold[]) =>
          eventsOfRow(
            position,
            revision,
            '',
            type,
            data,
            parts,
            (at, eventRevision, _id, eventType, json) => new EventRow(eventRevision, at, eventType, json),
            fromRevision(from),
            into,
          ),
      )
    },
    async readSnapshots(streams, version) {
      const found: (Snapshot | undefined)[] = new Array(streams.length).fill(undefined)
      const rows = statements.snapshotsOf.all(JSON.stringify(streams), version) as [
        number,
        number,
        number | bigint,
        string,
      ][]
      for (const [i, revision, position, state] of rows) {
        found[i] = { revision, position: BigInt(position), state: JSON.parse(state) }
      }
      return found
    },
    async readAll({ after = 0n, types = [], limit }) {
      const wanted = types.length > 0 ? new Set(types) : undefined
      const tokens = partsTokens(types)
      const keep = (position: bigint, _revision: number, type: string) =>
        position > after && (wanted === undefined || wanted.has(type))
      const events: RecordedEvent[] = []
      // Rows are taken one by one until the page is full: a row may hold several events, or
      // none of the types asked for. A page may end inside a row; the next starts after it.
      const rows =
        recent.after(BigInt(after)) ??
        (statements.readAll(types.length, tokens.length).iterate(after, ...types, ...tokens) as Iterable<LogRow>)
      for (const row of rows) {
        streamEvents(row, row[AFTER_STREAM_ROW], keep, events)
        if (events.length >= limit) break
      }
      return events.length > limit ? events.slice(0, limit) : events
    },
    async head() {
      return BigInt(statements.head.get()?.p ?? 0)
    },
    onAppend: appends.listen,
    async close() {
      appends.close()
      db.close()
    },
  }
}

/** The store's statements, prepared once. */
function eventStatements(db: Database.Database) {
  // The streams of a batch as one JSON parameter: one statement whatever their number.
  // No ORDER BY: SQLite would sort the whole result in a temporary b-tree, while the
  // index already yields each stream in revision order (checked as rows are grouped).
  const eventsOfReads = `json_each(?) r
    JOIN events e ON e.stream = json_extract(r.value, '$[0]') AND e.revision >= json_extract(r.value, '$[1]')`
  const readAllStatements = new Map<string, Database.Statement<unknown[]>>()
  return {
    // The streams of an append as one JSON parameter: an import chunk writes a
    // stream per row, and one statement is cheaper than a statement per stream.
    // Rows as [request, revision] arrays: no object a stream.
    lastRevisions: db
      .prepare<[string], [request: number, revision: number | null]>(
        'SELECT s.key, (SELECT max(revision) FROM events WHERE stream = s.value) FROM json_each(?) s',
      )
      .raw(true),
    findById: db.prepare<[string], StoredRow>('SELECT stream, revision, position, parts FROM events WHERE id = ?'),
    // Positions are given, not left to AUTOINCREMENT: a row of several events takes one for each.
    insert: db.prepare(
      'INSERT INTO events (position, id, stream, revision, type, data, metadata, recorded_at, parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    lastPosition: db.prepare<[], { seq: number | bigint }>("SELECT seq FROM sqlite_sequence WHERE name = 'events'"),
    readStream: db
      .prepare<[string, number]>(
        `SELECT ${STREAM_ROW} FROM events e WHERE stream = ? AND revision >= ? ORDER BY revision`,
      )
      .raw(true),
    // The read each row answers comes last, where a stream would be.
    readStreams: db.prepare<[string]>(`SELECT ${STREAM_ROW}, r.key FROM ${eventsOfReads}`).raw(true),
    // The same, as arrays of the columns a fold reads: no row objects, no ids, no metadata.
    readStreamsToFold: db
      .prepare<[string]>(`SELECT r.key, e.revision, e.position, e.type, e.data, e.parts FROM ${eventsOfReads}`)
      .raw(true),
    saveSnapshot: db.prepare(
      'INSERT OR REPLACE INTO snapshots (stream, version, revision, position, state) VALUES (?, ?, ?, ?, ?)',
    ),
    snapshotsOf: db
      .prepare<[string, string]>(
        'SELECT s.key, n.revision, n.position, n.state FROM json_each(?) s JOIN snapshots n ON n.stream = s.value AND n.version = ?',
      )
      .raw(true),
    head: db.prepare<[], { p: number | null }>('SELECT max(position) AS p FROM events'),
    /** One prepared statement per number of filtered types (0 = no filter) and of tokens searched for in parts. */
    readAll(typeCount: number, tokenCount: number) {
      const shape = `${typeCount} ${tokenCount}`
      let statement = readAllStatements.get(shape)
      if (!statement) {
        // A row of several events is read when its parts hold one of the tokens (`partsTokens`);
        // each event is checked again as it is read. Rows holding none are passed over in SQL,
        // their data never copied out: a reaction following a few types reads little of a bulk load.
        const places = Array(typeCount).fill('?').join(',')
        const inParts = Array(tokenCount).fill('instr(parts, ?) > 0').join(' OR ')
        const filter = typeCount > 0 ? ` AND (type IN (${places}) OR (parts IS NOT NULL AND (${inParts})))` : ''
        statement = db
          .prepare<unknown[]>(`SELECT ${ROW} FROM events WHERE position > ?${filter} ORDER BY position`)
          .raw(true)
        readAllStatements.set(shape, statement)
      }
      return statement
    },
  }
}
type EventStatements = ReturnType<typeof eventStatements>

/** The rows of its latest appends a store keeps for its readers, in events. */
const RECENT_EVENTS = 8000

/** The positions of a stored row's first and last events. */
const rowSpan = ([position, , , , , , parts]: LogRow) => {
  const last = BigInt(position)
  return { first: parts === null ? last : last - BigInt((JSON.parse(parts) as Parts).length - 1), last }
}

/**
 * Appends wake subscribers in every thread of the process, and hand their
 * rows to the stores of the other threads (the projector runs in its own),
 * which keep them for their readers until read: a thread's own readers read
 * the file, so the command side holds no rows that would outlive a
 * young-generation collection.
 */
function appendSignal(file: string, keep: (rows: readonly LogRow[]) => void) {
  const listeners = new Set<() => void>()
  const channel = new BroadcastChannel(`shiplog-appends:${resolve(file)}`)
  channel.unref()
  const notify = () => {
    for (const l of listeners) l()
  }
  channel.onmessage = (message) => {
    keep((message as { data: LogRow[] }).data)
    notify()
  }
  return {
    wake(rows: LogRow[]) {
      notify()
      channel.postMessage(rows)
    },
    listen(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close: () => channel.close(),
  }
}

/** Where a stored row is, and its events' ids when it holds several. */
interface StoredRow {
  stream: string
  revision: number
  position: number | bigint
  parts: string | null
}

/** A request whose first event is already stored is a retry: it must match and writes nothing. */
function alreadyAppended(statements: EventStatements, req: AppendRequest) {
  const first = req.events[0] && statements.findById.get(req.events[0].id)
  if (!first) return undefined
  return retriedAppend(
    req.stream,
    first.parts === null
      ? req.events.map((e) => statements.findById.get(e.id))
      : eventsIn(first.parts, first, req.events),
  )
}

/** Where each of these events is in a row of several (undefined: not in it). */
function eventsIn(parts: string, row: StoredRow, events: readonly NewEvent[]) {
  const stored: { id: string; stream: string; revision: number; position: bigint }[] = []
  eventsOfRow(
    row.position,
    row.revision,
    '',
    SEVERAL_EVENTS,
    '',
    parts,
    (position, revision, id) => ({ id, stream: row.stream, revision, position }),
    () => true,
    stored,
  )
  return events.map((e) => stored.find((s) => s.id === e.id))
}

/** Several events' data as one JSON array, with each one's id, type and place in it. */
function packed(events: readonly NewEvent[]): { data: string; parts: string } {
  const jsons = events.map((e) => JSON.stringify(e.data))
  const parts: Parts = []
  // Each data's place in `[a,b,…]`: after the bracket, then after each comma.
  let start = 1
  for (let i = 0; i < events.length; i++) {
    const end = start + jsons[i]!.length
    parts.push([events[i]!.id, events[i]!.type, start, end])
    start = end + 1
  }
  // Brackets joined in with the rest: one flat string, where `[${…}]` would make a
  // rope that binding the row copies once more.
  jsons[0] = `[${jsons[0]}`
  jsons[jsons.length - 1] += ']'
  return { data: jsons.join(','), parts: JSON.stringify(parts) }
}

/**
 * An atomic append's body, run inside its transaction: every request checked,
 * then written, or none. The rows written are added to `appended`, to be
 * handed to readers once committed.
 */
function appendRequests(statements: EventStatements, requests: AppendRequest[], appended: LogRow[]): AppendResult {
  // A command stamps all its events with one metadata object: serialise it once.
  const metadataJson = new Map<object, string>()
  const serialiseMetadata = (m: object) => {
    let json = metadataJson.get(m)
    if (json === undefined) {
      json = JSON.stringify(m)
      metadataJson.set(m, json)
    }
    return json
  }
  let head = BigInt(statements.lastPosition.get()?.seq ?? 0)
  let position = 0n
  const revisions: number[] = []
  // Each stream's last revision as this transaction leaves it.
  const last = new Map<string, number>()
  for (const [request, revision] of statements.lastRevisions.all(JSON.stringify(requests.map((r) => r.stream)))) {
    const stream = requests[request]!.stream
    if (!last.has(stream)) last.set(stream, revision ?? -1)
  }
  const skip = (retry: { revision: number; position: bigint }) => {
    revisions.push(retry.revision)
    if (retry.position > position) position = retry.position
  }
  for (const req of requests) {
    const current = last.get(req.stream)!
    const ok = isExpected(req.expected, current)
    // A retry of events already stored is looked for only when the append cannot go
    // ahead as asked: the expected state fails, or the first event's id is taken.
    const retry = ok ? undefined : alreadyAppended(statements, req)
    if (!ok && !retry) {
      throw conflictOf(req.stream, req.expected, current)
    }
    if (retry) {
      skip(retry)
      continue
    }
    if (req.events.length === 0) {
      revisions.push(current)
      continue
    }
    const metadata = serialiseMetadata(req.events[0]!.metadata)
    const recordedAt = req.events[0]!.metadata.recordedAt
    const together = req.events.length > 1 && req.events.every((e) => serialiseMetadata(e.metadata) === metadata)
    let revision = current
    let written = head
    const requestRows: LogRow[] = []
    const insert = (row: LogRow, rowRecordedAt: number) => {
      const [position, id, rowRevision, type, data, rowMetadata, parts, stream] = row
      statements.insert.run(position, id, stream, rowRevision, type, data, rowMetadata, rowRecordedAt, parts)
      requestRows.push(row)
    }
    try {
      if (together) {
        const { data, parts } = packed(req.events)
        revision += req.events.length
        written += BigInt(req.events.length)
        insert([written, req.events[0]!.id, revision, SEVERAL_EVENTS, data, metadata, parts, req.stream], recordedAt)
      } else {
        for (const e of req.events) {
          revision += 1
          written += 1n
          const row: LogRow = [
            written,
            e.id,
            revision,
            e.type,
            JSON.stringify(e.data),
            serialiseMetadata(e.metadata),
            null,
            req.stream,
          ]
          insert(row, e.metadata.recordedAt)
        }
      }
    } catch (error) {
      const again =
        (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' ? alreadyAppended(statements, req) : undefined
      if (!again) throw error
      skip(again)
      continue
    }
    head = written
    position = written
    for (const row of requestRows) appended.push(row)
    last.set(req.stream, revision)
    revisions.push(revision)
    // Only a state folded from exactly the revision the append expected is the stream's state after it.
    const exact = typeof req.expected === 'number' || req.expected === 'no_stream'
    if (req.snapshot && exact)
      statements.saveSnapshot.run(
        req.stream,
        req.snapshot.version,
        revision,
        position,
        JSON.stringify(req.snapshot.state),
      )
  }
  return { position, revisions }
}
