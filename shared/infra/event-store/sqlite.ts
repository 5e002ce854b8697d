import { resolve } from 'node:path'
import { BroadcastChannel } from 'node:worker_threads'
import { applyWalCheckpoints, type WalCheckpoints } from '../sqlite/checkpoints.ts'
import type { AppendRequest, AppendResult, EventStore, EventToFold, RecordedEvent, Snapshot } from './port.ts'
import { RecentAppends } from './recent-appends.ts'
import { EventRow } from './stored-event.ts'
import {
  AFTER_STREAM_ROW,
  type FoldRow,
  type LogRow,
  type Parts,
  type ReadsRow,
  type StreamRow,
  byRead,
  eventsOfRow,
  fromRevision,
  partsTokens,
  streamEvents,
  streamReads,
} from './sqlite-rows.ts'
import { isBusy, writeWhenFree } from '../sqlite/busy.ts'
import { EVENTS_TABLE, EVENT_LOG_VIEW, SNAPSHOTS_TABLE, openEventsFile } from './sqlite-schema.ts'
import { appendRequests, eventStatements } from './sqlite-append.ts'

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
  // Each waiting append in a savepoint of its own (a transaction function
  // called inside another is one): one that fails leaves the others in.
  const appendEachAlone = db.transaction((group: readonly WaitingAppend[], rows: LogRow[]) =>
    group.map((waiting): AppendOutcome => {
      const own: LogRow[] = []
      try {
        const result = appendAll(waiting.requests, own)
        for (const row of own) rows.push(row)
        return { result }
      } catch (error) {
        return { error }
      }
    }),
  )
  // A group seldom meets a conflict: its appends go in one pass, as one
  // append, with no savepoint each (a savepoint journals a copy of every page
  // it changes). One that fails undoes the pass, and the group goes again,
  // each alone.
  const appendTogether = db.transaction((group: readonly WaitingAppend[], rows: LogRow[]) => {
    const { revisions, positions } = appendRequests(
      statements,
      group.flatMap((waiting) => waiting.requests),
      rows,
    )
    let from = 0
    return group.map((waiting): AppendOutcome => {
      const to = from + waiting.requests.length
      const own = positions.slice(from, to).reduce((highest, p) => (p > highest ? p : highest), 0n)
      const result = { position: own, revisions: revisions.slice(from, to) }
      from = to
      return { result }
    })
  })
  const appendGroup = (group: readonly WaitingAppend[], rows: LogRow[]) => {
    try {
      return appendTogether.immediate(group, rows)
    } catch (error) {
      // Another connection holding the log is for writeWhenFree to wait out.
      if (isBusy(error)) throw error
      rows.length = 0
      return appendEachAlone.immediate(group, rows)
    }
  }
  const recent = new RecentAppends<LogRow>(rowSpan, RECENT_EVENTS)
  const appends = appendSignal(file, (rows) => recent.add(rows))

  // An append alone needs no savepoint, and a batch's pages are then not journaled twice.
  const appending = groupCommit(
    db,
    (group, rows) =>
      group.length === 1 ? [{ result: appendAll.immediate(group[0]!.requests, rows) }] : appendGroup(group, rows),
    (rows) => appends.wake(rows),
  )

  return {
    kind: 'sqlite',
    append: appending.append,
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
      appending.close()
      appends.close()
      db.close()
    },
  }
}

/**
 * Group commit: the appends asked for in one turn of the event loop (the
 * requests that arrived together) are committed in one transaction at the
 * end of the turn, and each is answered once it is stored. A commit writes
 * the pages it touches whole, and the log's and its indexes' last pages are
 * then written once for all of them instead of once each. While another
 * connection holds the log, the group waits on a timer (writeWhenFree), and
 * appends asked for meanwhile join it.
 */
function groupCommit(
  db: Parameters<typeof writeWhenFree>[0],
  commit: (group: readonly WaitingAppend[], rows: LogRow[]) => AppendOutcome[],
  stored: (rows: LogRow[]) => void,
) {
  let waiting: WaitingAppend[] = []
  /** Commits what waits (nothing when a close has); returns how to answer it. A busy log leaves it waiting. */
  const commitWaiting = () => {
    const group = waiting
    if (group.length === 0) return () => {}
    const rows: LogRow[] = []
    const outcomes = commit(group, rows)
    waiting = []
    return () => {
      if (rows.length > 0) stored(rows)
      outcomes.forEach((outcome, i) => {
        if ('error' in outcome) group[i]!.reject(outcome.error)
        else group[i]!.resolve(outcome.result)
      })
    }
  }
  const fail = (error: unknown) => {
    const group = waiting
    waiting = []
    for (const w of group) w.reject(error)
  }
  const commitWhenFree = () => writeWhenFree(db, commitWaiting).then((answer) => answer(), fail)
  return {
    append: (requests: AppendRequest[]) =>
      new Promise<AppendResult>((resolve, reject) => {
        if (waiting.length === 0) setImmediate(commitWhenFree)
        waiting.push({ requests, resolve, reject })
      }),
    /** Commits what waits, blocking (the store is closing). */
    close() {
      try {
        commitWaiting()()
      } catch (error) {
        fail(error)
      }
    },
  }
}

/** An append waiting for its turn's commit. */
interface WaitingAppend {
  requests: AppendRequest[]
  resolve(result: AppendResult): void
  reject(error: unknown): void
}
type AppendOutcome = { result: AppendResult } | { error: unknown }

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
