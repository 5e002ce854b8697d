import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { openPostgres } from '../postgres.ts'
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
import { EventRow, StoredEvent } from './stored-event.ts'

/*
 * The event store on PostgreSQL: one append-only table whose `position` is the
 * global order. Positions are handed out by a single-writer sequence: every
 * append first locks the one row of `event_head` (held until it commits), so
 * appends commit in position order and a reader of the log never sees
 * position N+1 before N; a later-committing writer cannot slip an event in
 * behind a reader's checkpoint. Appends on one database are serialised by
 * that lock, as SQLite serialises them; reads are not.
 * (docs/architecture.md, "PostgreSQL".)
 */

const TABLES = [
  `CREATE TABLE IF NOT EXISTS events (
    position    bigint  PRIMARY KEY,
    id          text    NOT NULL UNIQUE,
    stream      text    NOT NULL,
    revision    integer NOT NULL,
    type        text    NOT NULL,
    data        json    NOT NULL,
    metadata    json    NOT NULL,
    recorded_at bigint  NOT NULL,
    UNIQUE (stream, revision)
  )`,
  `CREATE TABLE IF NOT EXISTS event_head (one boolean PRIMARY KEY DEFAULT true CHECK (one), position bigint NOT NULL)`,
  `INSERT INTO event_head (position) VALUES (0) ON CONFLICT DO NOTHING`,
  `CREATE TABLE IF NOT EXISTS snapshots (
    stream   text    PRIMARY KEY,
    version  text    NOT NULL,
    revision integer NOT NULL,
    position bigint  NOT NULL,
    state    jsonb   NOT NULL
  )`,
]

/**
 * An event's row as read. pg answers bigint columns as strings: positions are
 * bigints here, never numbers that could round. Data and metadata are read
 * as their text, parsed when first asked for (StoredEvent): the orders read
 * model copies an event's data text as stored, where pg's parse and a
 * stringify back took a fifth of the projector's busy time.
 */
type Row = {
  position: string
  id: string
  stream: string
  revision: number
  type: string
  data: string
  metadata: string
}
/** An event's columns; `table` (`e.`) names the events table where a query reads several. */
const eventColumns = (table = '') =>
  ['position', 'id', 'stream', 'revision', 'type', 'data::text AS data', 'metadata::text AS metadata']
    .map((column) => table + column)
    .join(', ')

const toEvent = (r: Row): RecordedEvent =>
  new StoredEvent(BigInt(r.position), r.revision, r.id, r.type, r.data, r.metadata, r.stream)

/**
 * Several stream reads as parallel arrays, each joined to its events by its
 * index (`ord`, from 1). Each stream is looked up on its own (a lateral
 * subquery the ORDER BY keeps from being flattened into a join): before the
 * table's statistics exist, the planner would otherwise hash-join the whole
 * log, a read that grows with it.
 */
const READS = `unnest($1::text[], $2::int[]) WITH ORDINALITY AS r(stream, from_revision, ord)
  CROSS JOIN LATERAL (SELECT * FROM events e
    WHERE e.stream = r.stream AND e.revision >= r.from_revision ORDER BY e.revision) e`

/**
 * Opens the store on `url` (postgres://…), in the schema it names (see
 * openPostgres) or `schema`.
 */
export async function createPostgresEventStore(url: string, schema?: string): Promise<EventStore> {
  const { pool, connection, transaction, schema: chosen } = await openPostgres(url, { max: 8, schema, setup: TABLES })
  const channel = `shiplog_appends_${chosen}`.slice(0, 63)
  const listeners = new Set<() => void>()
  const wake = () => {
    for (const listener of listeners) listener()
  }
  // Other processes' appends arrive as notifications; this process's wake its listeners at once.
  const notifications = await listenFor(connection, channel, wake)

  const readStreams = async (reads: readonly StreamRead[], columns: string) => {
    const { rows } = await pool.query(`SELECT r.ord, ${columns} FROM ${READS} ORDER BY r.ord, e.revision`, [
      reads.map((r) => r.stream),
      reads.map((r) => r.fromRevision ?? 0),
    ])
    const results: Row[][] = reads.map(() => [])
    for (const row of rows as (Row & { ord: string })[]) results[Number(row.ord) - 1]!.push(row)
    return results
  }

  return {
    kind: 'postgres',
    async append(requests) {
      const result = await transaction((client) => appendRequests(client, requests, channel))
      wake()
      return result
    },
    async readStream(stream, fromRevision = 0) {
      const { rows } = await pool.query(
        `SELECT ${eventColumns()} FROM events WHERE stream = $1 AND revision >= $2 ORDER BY revision`,
        [stream, fromRevision],
      )
      return (rows as Row[]).map(toEvent)
    },
    async readStreams(reads) {
      const results = await readStreams(reads, eventColumns('e.'))
      return results.map((rows) => rows.map(toEvent))
    },
    async readStreamsToFold(reads) {
      const results = await readStreams(reads, 'e.position, e.revision, e.type, e.data::text AS data')
      return results.map((rows): EventToFold[] =>
        rows.map((r) => new EventRow(r.revision, BigInt(r.position), r.type, r.data)),
      )
    },
    async readSnapshots(streams, version) {
      const { rows } = await pool.query(
        `SELECT s.ord, n.revision, n.position, n.state
           FROM unnest($1::text[]) WITH ORDINALITY AS s(stream, ord)
           CROSS JOIN LATERAL (SELECT * FROM snapshots n WHERE n.stream = s.stream AND n.version = $2 LIMIT 1) n`,
        [streams, version],
      )
      const found: (Snapshot | undefined)[] = streams.map(() => undefined)
      for (const r of rows as { ord: string; revision: number; position: string; state: unknown }[])
        found[Number(r.ord) - 1] = { revision: r.revision, position: BigInt(r.position), state: r.state }
      return found
    },
    async readAll({ after = 0n, types = [], limit }) {
      const filter = types.length > 0 ? 'AND type = ANY($3::text[])' : ''
      const { rows } = await pool.query(
        `SELECT ${eventColumns()} FROM events WHERE position > $1 ${filter} ORDER BY position LIMIT $2`,
        types.length > 0 ? [after.toString(), limit, types] : [after.toString(), limit],
      )
      return (rows as Row[]).map(toEvent)
    },
    async head() {
      const { rows } = await pool.query('SELECT position FROM event_head')
      return BigInt((rows[0] as { position: string } | undefined)?.position ?? 0)
    },
    onAppend(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async close() {
      await notifications.stop()
      await pool.end()
    },
  }
}

/** An event as an append writes it: its row's columns, data and metadata not yet written as JSON, and its time. */
type EventRowJson = Omit<Row, 'data' | 'metadata'> & { data: unknown; metadata: EventMetadata; recorded_at: number }

/** An atomic append's body, inside its transaction: the head locked, every request checked, then written, or none. */
async function appendRequests(
  client: pg.PoolClient,
  requests: AppendRequest[],
  channel: string,
): Promise<AppendResult> {
  const head = await client.query('SELECT position FROM event_head FOR UPDATE')
  let next = BigInt((head.rows[0] as { position: string }).position)
  const streams = [...new Set(requests.map((r) => r.stream))]
  // Each stream's last revision read from the end of its (stream, revision) index: one probe a stream,
  // where `max() … GROUP BY` over `= ANY` scanned a batch's streams at a third of the insert's time.
  const current = await client.query(
    `SELECT s.stream, (SELECT e.revision FROM events e WHERE e.stream = s.stream ORDER BY e.revision DESC LIMIT 1) AS revision
     FROM unnest($1::text[]) AS s(stream)`,
    [streams],
  )
  const last = new Map<string, number>(streams.map((s) => [s, -1]))
  for (const row of current.rows as { stream: string; revision: number | null }[])
    if (row.revision !== null) last.set(row.stream, row.revision)
  let position = 0n
  const revisions: number[] = []
  const rows: EventRowJson[] = []
  const snapshots: [string, string, number, string, string][] = []
  // A request whose first event is stored is a retry, whatever it expects (`any` included), as in
  // the embedded store; an event id stored under another append still meets the unique index.
  const firstIds = requests.flatMap((r) => (r.events.length > 0 ? [r.events[0]!.id] : []))
  const stored = await client.query('SELECT id FROM events WHERE id = ANY($1::text[])', [firstIds])
  const storedIds = new Set((stored.rows as { id: string }[]).map((r) => r.id))
  for (const req of requests) {
    const at = last.get(req.stream)!
    const isRetry = req.events.length > 0 && storedIds.has(req.events[0]!.id)
    if (isRetry || !isExpected(req.expected, at)) {
      // A retry of events already stored answers what they were given, and writes nothing.
      const retry = await alreadyAppended(client, req)
      if (!retry) {
        throw conflictOf(req.stream, req.expected, at)
      }
      revisions.push(retry.revision)
      if (retry.position > position) position = retry.position
      continue
    }
    let revision = at
    for (const e of req.events) {
      revision += 1
      next += 1n
      rows.push({
        position: next.toString(),
        id: e.id,
        stream: req.stream,
        revision,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        recorded_at: e.metadata.recordedAt,
      })
    }
    if (req.events.length > 0) position = next
    last.set(req.stream, revision)
    revisions.push(revision)
    const exact = typeof req.expected === 'number' || req.expected === 'no_stream'
    if (req.snapshot && exact && req.events.length > 0)
      snapshots.push([req.stream, req.snapshot.version, revision, next.toString(), JSON.stringify(req.snapshot.state)])
  }
  if (rows.length > 0) {
    await copyRows(client, rows)
    await client.query('UPDATE event_head SET position = $1', [next.toString()])
    await client.query('SELECT pg_notify($1, $2)', [channel, next.toString()])
  }
  for (const snapshot of snapshots) {
    await client.query(
      `INSERT INTO snapshots (stream, version, revision, position, state) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (stream) DO UPDATE SET version = $2, revision = $3, position = $4, state = $5`,
      snapshot,
    )
  }
  return { position, revisions }
}

/** JSON text as COPY's text format reads it: JSON writes no raw tab or line break, so only `\\` is escaped. */
const copyJson = (json: string) => (json.includes('\\') ? json.replaceAll('\\', '\\\\') : json)

/** A value as COPY's text format reads it: `\\`, tab, line feed and carriage return escaped. */
const copyText = (value: string) => (COPY_ESCAPED.test(value) ? value.replace(COPY_ESCAPES, escapeForCopy) : value)
const COPY_ESCAPED = /[\\\t\n\r]/
const COPY_ESCAPES = /[\\\t\n\r]/g
const escapeForCopy = (c: string) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')

/**
 * The events written with `COPY … FROM STDIN`, as PostgreSQL loads rows
 * fastest: a JSON parameter parsed by `json_to_recordset` cost the server a
 * third more than the rows themselves.
 */
async function copyRows(client: pg.PoolClient, rows: readonly EventRowJson[]) {
  // A command stamps all its events with one metadata object: its text is made once.
  const metadataText = new Map<object, string>()
  let text = ''
  for (const r of rows) {
    let metadata = metadataText.get(r.metadata)
    if (metadata === undefined) {
      metadata = copyJson(JSON.stringify(r.metadata))
      metadataText.set(r.metadata, metadata)
    }
    text += `${r.position}\t${copyText(r.id)}\t${copyText(r.stream)}\t${r.revision}\t${copyText(r.type)}\t${copyJson(
      JSON.stringify(r.data),
    )}\t${metadata}\t${r.recorded_at}\n`
  }
  const copy = client.query(
    copyFrom('COPY events (position, id, stream, revision, type, data, metadata, recorded_at) FROM STDIN'),
  )
  await pipeline(Readable.from([text]), copy)
}

/** A request whose first event is already stored is a retry: it must match and writes nothing. */
async function alreadyAppended(client: pg.PoolClient, req: AppendRequest) {
  if (req.events.length === 0) return undefined
  const { rows } = await client.query('SELECT id, stream, revision, position FROM events WHERE id = ANY($1::text[])', [
    req.events.map((e) => e.id),
  ])
  if (rows.length === 0) return undefined
  const byId = new Map(
    (rows as { id: string; stream: string; revision: number; position: string }[]).map((r) => [r.id, r]),
  )
  return retriedAppend(
    req.stream,
    req.events.map((e) => byId.get(e.id)),
  )
}

/**
 * A connection of its own that LISTENs on `channel`, made again a second
 * after it is lost (the database restarted): followers poll meanwhile, and
 * are woken once it is back, as a notification may have been missed.
 */
async function listenFor(connection: pg.ClientConfig, channel: string, wake: () => void) {
  let client: pg.Client | undefined
  let stopped = false
  let retry: NodeJS.Timeout | undefined
  const open = async (first: boolean) => {
    const next = new pg.Client(connection)
    next.on('notification', wake)
    let gone = false
    // A first connection that fails fails the start; a later one is tried again.
    let live = !first
    const lost = () => {
      if (gone || stopped || !live) return
      gone = true
      if (client === next) client = undefined
      next.end().catch(() => {})
      retry = setTimeout(() => void open(false), 1000)
      retry.unref()
    }
    next.on('error', lost)
    next.on('end', lost)
    client = next
    try {
      await next.connect()
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      live = true
      wake()
    } catch (error) {
      if (first) throw error
      lost()
    }
  }
  await open(true)
  return {
    async stop() {
      stopped = true
      clearTimeout(retry)
      await client?.end().catch(() => {})
    },
  }
}
