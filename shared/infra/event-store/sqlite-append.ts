import type Database from 'better-sqlite3'
import type { AppendRequest, AppendResult, NewEvent } from './port.ts'
import { conflictOf, isExpected, retriedAppend } from './port.ts'
import { type LogRow, type Parts, ROW, SEVERAL_EVENTS, STREAM_ROW, eventsOfRow } from './sqlite-rows.ts'

/*
 * The embedded log's statements, and an atomic append: every request checked
 * against its stream's revision, then its events written, one row an append
 * to one stream.
 */

/** The store's statements, prepared once. */
export function eventStatements(db: Database.Database) {
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
 * handed to readers once committed. Besides the append's result, each
 * request's own position: of its last event written or found, 0 for none.
 */
export function appendRequests(
  statements: EventStatements,
  requests: readonly AppendRequest[],
  appended: LogRow[],
): AppendResult & { positions: bigint[] } {
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
  const positions: bigint[] = []
  // Each stream's last revision as this transaction leaves it.
  const last = new Map<string, number>()
  for (const [request, revision] of statements.lastRevisions.all(JSON.stringify(requests.map((r) => r.stream)))) {
    const stream = requests[request]!.stream
    if (!last.has(stream)) last.set(stream, revision ?? -1)
  }
  const skip = (retry: { revision: number; position: bigint }) => {
    revisions.push(retry.revision)
    positions.push(retry.position)
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
      positions.push(0n)
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
    positions.push(position)
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
  return { position, revisions, positions }
}
