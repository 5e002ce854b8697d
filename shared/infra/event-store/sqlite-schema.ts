import { openWalFile } from '../sqlite/open.ts'

/* The embedded log's file: its tables, its view for SQL run on it, and its settings. */

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
export const EVENT_LOG_VIEW = `
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
export const SNAPSHOTS_TABLE = `
  CREATE TABLE IF NOT EXISTS snapshots (
    stream   TEXT    PRIMARY KEY,
    version  TEXT    NOT NULL,
    revision INTEGER NOT NULL,
    position INTEGER NOT NULL,
    state    TEXT    NOT NULL
  ) WITHOUT ROWID`

/** A new file's settings, before the table exists: see createSqliteEventStore. */
export function openEventsFile(file: string) {
  // 16 KiB pages: the log's indexes, inserted into at random places, split
  // fewer pages, and an event with its payload rarely needs an overflow page.
  const db = openWalFile(file, 16384)
  // A group commit holds each append in a savepoint, whose journal of the
  // pages it changes would otherwise be a temporary file, written page by page.
  db.pragma('temp_store = MEMORY')
  return db
}
