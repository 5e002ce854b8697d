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
  RecordedEvent,
  Snapshot,
  StreamRead,
} from './port.ts'
import { conflictOf, isExpected, retriedAppend } from './port.ts'

/**
 * A row of a stream read: its stream is the one asked for, not read back.
 * Without that column and `recorded_at` (which repeats the metadata's
 * `recordedAt`, for SQL run on the file), a read of many streams is cheaper.
 * Rows are read as arrays (better-sqlite3's raw mode), cheaper to make than
 * objects.
 * A read of several streams or of the log adds a column after these.
 */
type StreamRow = [position: number | bigint, id: string, revision: number, type: string, data: string, metadata: string]
const streamRowColumns = ['position', 'id', 'revision', 'type', 'data', 'metadata']
/** Where a log row's stream, or a several-stream read's request, comes: after a stream row's columns. */
const AFTER_STREAM_ROW = 6
/** A row of the log at large: its stream is the last column. */
type LogRow = [...StreamRow, stream: string]
/** A row of a several-stream read: the read it answers is the last column. */
type ReadsRow = [...StreamRow, request: number]
/** The same, in a query where the events table is `e`. */
const STREAM_ROW = streamRowColumns.map((c) => `e.${c}`).join(', ')
/** The columns of a row read from the log at large. */
const ROW = [...streamRowColumns, 'stream'].join(', ')

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

  constructor(revision: number, position: number | bigint, type: string, json: string) {
    this.revision = revision
    this.position = BigInt(position)
    this.type = type
    this.#json = json
  }

  get data(): unknown {
    if (this.#data === undefined) {
      this.#data = JSON.parse(this.#json)
      // Parsed once: the text need not outlive it (a projector holds up to 5000 events a batch, in a rebuild).
      this.#json = ''
    }
    return this.#data
  }
}

class StoredEvent extends EventRow implements RecordedEvent {
  readonly id: string
  readonly stream: string
  #metadataJson: string
  #metadata: EventMetadata | undefined

  constructor([position, id, revision, type, data, metadata]: StreamRow | LogRow | ReadsRow, stream: string) {
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
 * Rows of a several-stream read, grouped by the read they answer. Each
 * stream's rows come in revision order from the index (checked; sorted if not).
 */
function byRead<R, E extends { revision: number }>(
  count: number,
  rows: readonly R[],
  readOf: (row: R) => number,
  eventOf: (row: R) => E,
): E[][] {
  const results: E[][] = Array.from({ length: count }, () => [])
  let ordered = true
  for (const row of rows) {
    const events = results[readOf(row)]!
    const event = eventOf(row)
    if (events.length > 0 && events[events.length - 1]!.revision > event.revision) ordered = false
    events.push(event)
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

const toEvent = (r: LogRow): RecordedEvent => new StoredEvent(r, r[AFTER_STREAM_ROW])

/** A row of `readStreamsToFold`: the read it answers, then the event's revision, position, type and data. */
type FoldRow = [number, number, number | bigint, string, string]

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
    UNIQUE (stream, revision)
  )`
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
  db.exec(SNAPSHOTS_TABLE)
  const statements = eventStatements(db)
  const appendAll = db.transaction((requests: AppendRequest[]) => appendRequests(statements, requests))
  const appends = appendSignal(file)

  return {
    kind: 'sqlite',
    async append(requests) {
      const result = appendAll.immediate(requests)
      appends.wake()
      return result
    },
    async readStream(stream, fromRevision = 0) {
      return (statements.readStream.all(stream, fromRevision) as StreamRow[]).map((row) => new StoredEvent(row, stream))
    },
    async readStreams(reads) {
      return byRead(
        reads.length,
        statements.readStreams.all(streamReads(reads)) as ReadsRow[],
        (row) => row[AFTER_STREAM_ROW],
        (row) => new StoredEvent(row, reads[row[AFTER_STREAM_ROW]]!.stream),
      )
    },
    async readStreamsToFold(reads) {
      return byRead(
        reads.length,
        statements.readStreamsToFold.all(streamReads(reads)) as unknown as FoldRow[],
        (row) => row[0],
        ([, revision, position, type, data]) => new EventRow(revision, position, type, data),
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
      return (statements.readAll(types.length).all(after, ...types, limit) as LogRow[]).map(toEvent)
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
  const readAllStatements = new Map<number, Database.Statement<unknown[]>>()
  return {
    // The streams of an append as one JSON parameter: an import chunk writes a
    // stream per row, and one statement is cheaper than a statement per stream.
    lastRevisions: db.prepare<[string], { request: number; r: number | null }>(
      'SELECT s.key AS request, (SELECT max(revision) FROM events WHERE stream = s.value) AS r FROM json_each(?) s',
    ),
    findById: db.prepare<[string], { stream: string; revision: number; position: number }>(
      'SELECT stream, revision, position FROM events WHERE id = ?',
    ),
    insert: db.prepare(INSERT_EVENT),
    readStream: db
      .prepare<[string, number]>(
        `SELECT ${STREAM_ROW} FROM events e WHERE stream = ? AND revision >= ? ORDER BY revision`,
      )
      .raw(true),
    // The read each row answers comes last, where a stream would be.
    readStreams: db.prepare<[string]>(`SELECT ${STREAM_ROW}, r.key FROM ${eventsOfReads}`).raw(true),
    // The same, as arrays of the columns a fold reads: no row objects, no ids, no metadata.
    readStreamsToFold: db
      .prepare<[string]>(`SELECT r.key, e.revision, e.position, e.type, e.data FROM ${eventsOfReads}`)
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
    /** One prepared statement per number of filtered types (0 = no filter). */
    readAll(typeCount: number) {
      let statement = readAllStatements.get(typeCount)
      if (!statement) {
        const filter = typeCount > 0 ? ` AND type IN (${Array(typeCount).fill('?').join(',')})` : ''
        statement = db
          .prepare<unknown[]>(`SELECT ${ROW} FROM events WHERE position > ?${filter} ORDER BY position LIMIT ?`)
          .raw(true)
        readAllStatements.set(typeCount, statement)
      }
      return statement
    },
  }
}
type EventStatements = ReturnType<typeof eventStatements>

/** Appends wake subscribers in every thread of the process (the projector runs in its own). */
function appendSignal(file: string) {
  const listeners = new Set<() => void>()
  const channel = new BroadcastChannel(`shiplog-appends:${resolve(file)}`)
  channel.unref()
  const notify = () => {
    for (const l of listeners) l()
  }
  channel.onmessage = notify
  return {
    wake() {
      notify()
      channel.postMessage(null)
    },
    listen(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close: () => channel.close(),
  }
}

/** A request whose first event is already stored is a retry: it must match and writes nothing. */
function alreadyAppended(statements: EventStatements, req: AppendRequest) {
  const first = req.events[0] && statements.findById.get(req.events[0].id)
  if (!first) return undefined
  return retriedAppend(
    req.stream,
    req.events.map((e) => statements.findById.get(e.id)),
  )
}

/** An atomic append's body, run inside its transaction: every request checked, then written, or none. */
function appendRequests(statements: EventStatements, requests: AppendRequest[]): AppendResult {
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
  let position = 0n
  const revisions: number[] = []
  // Each stream's last revision as this transaction leaves it.
  const last = new Map<string, number>()
  for (const row of statements.lastRevisions.all(JSON.stringify(requests.map((r) => r.stream)))) {
    const stream = requests[row.request]!.stream
    if (!last.has(stream)) last.set(stream, row.r ?? -1)
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
    let revision = current
    try {
      for (const e of req.events) {
        revision += 1
        const info = statements.insert.run(
          e.id,
          req.stream,
          revision,
          e.type,
          JSON.stringify(e.data),
          serialiseMetadata(e.metadata),
          e.metadata.recordedAt,
        )
        position = BigInt(info.lastInsertRowid)
      }
    } catch (error) {
      const again =
        (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' ? alreadyAppended(statements, req) : undefined
      if (!again) throw error
      skip(again)
      continue
    }
    last.set(req.stream, revision)
    revisions.push(revision)
    // Only a state folded from exactly the revision the append expected is the stream's state after it.
    const exact = typeof req.expected === 'number' || req.expected === 'no_stream'
    if (req.snapshot && exact && req.events.length > 0)
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
