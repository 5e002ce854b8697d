import type Database from 'better-sqlite3'
import { writeWhenFree } from '../sqlite/busy.ts'
import { pendingLines } from './sql-tables.ts'
import {
  type CollectionSpec,
  checkViewNames,
  type DocumentAppend,
  type DocumentWrite,
  isAppend,
  type ReadStore,
} from './port.ts'
import { type SpecOf, type Statements, type Stored, type checkpointStatements, encode } from './sqlite-statements.ts'

/* The embedded read store's writes: a projector's commit of documents and checkpoints, and views filled when idle. */

/** A document's views in the collection's view order, encoded as stored; null for a view not given. */
const encodeViews = (spec: CollectionSpec, views: Readonly<Record<string, string>> | undefined) => {
  checkViewNames(spec, views)
  return (spec.views ?? []).map((v) => {
    const view = views?.[v]
    return view === undefined ? null : encode(spec, view)
  })
}

/** A write with its document and views serialised and encoded as stored; an append with its events as lines. */
type EncodedWrite =
  | { write: DocumentWrite; spec: CollectionSpec; doc: Stored; views: (Stored | null)[] }
  | { append: DocumentAppend; spec: CollectionSpec; lines: string }

/** The store's writes: a projector's commit of documents with its checkpoints, and views filled when idle. */
export function documentWrites(
  db: Database.Database,
  sql: Statements,
  checkpoints: ReturnType<typeof checkpointStatements>,
  specOf: SpecOf,
): Pick<ReadStore, 'commit' | 'fillViews'> {
  const fillViews = db.transaction(
    (
      spec: CollectionSpec,
      items: readonly { key: string; revision: number; views: (Stored | null)[]; folded?: Stored }[],
    ) => {
      let filled = 0
      for (const { views, folded, key, revision } of items)
        filled += (
          folded === undefined
            ? sql.filled(spec, false).run(...views, key, revision)
            : sql.filled(spec, true).run(...views, folded, key, revision)
        ).changes
      return filled
    },
  )
  const encodeWrite = (w: DocumentWrite | DocumentAppend): EncodedWrite => {
    const spec = specOf(w.collection)
    if (isAppend(w)) return { append: w, spec, lines: pendingLines(w.events) }
    return { write: w, spec, doc: encode(spec, JSON.stringify(w.doc)), views: encodeViews(spec, w.views) }
  }
  const commit = db.transaction(
    (projections: readonly string[], writes: readonly EncodedWrite[], checkpoint: bigint) => {
      for (const encoded of writes) {
        if ('append' in encoded) {
          appendPending(encoded.spec, encoded.append, encoded.lines)
          continue
        }
        const { write: w, spec, doc, views } = encoded
        // In place only forward: a document never goes back to an older revision.
        if (w.replaces && w.replaces.revision < w.revision) {
          const { revision, changedFields } = w.replaces
          const changed = changedFields.map((f) => w.fields[f] ?? null)
          const updated = sql.update(spec, changedFields).run(w.revision, doc, ...changed, ...views, w.key, revision)
          // Not at that revision any more (or gone): the upsert below writes it all, if newer.
          if (updated.changes > 0) continue
        }
        sql
          .upsert(spec)
          .run(
            w.accountId,
            w.id,
            w.key,
            w.revision,
            doc,
            ...Object.keys(spec.fields).map((f) => w.fields[f] ?? null),
            ...views,
          )
      }
      checkpoints.advance.run(checkpoint.toString(), JSON.stringify(projections))
    },
  )
  /**
   * Events added to a stored document's pending lines, its views dropped
   * (they are rendered again when idle), if it is still at the revision the
   * projection read: it is the only writer of its documents, so a document
   * that moved means a bug, and the whole commit is refused.
   */
  const appendPending = (spec: CollectionSpec, append: DocumentAppend, lines: string) => {
    if (append.creates) {
      // A new document is its events: `null` until a read or the views' filling folds them.
      const { accountId, id, fields } = append.creates
      sql
        .createdPending(spec)
        .run(
          accountId,
          id,
          append.key,
          append.revision,
          lines,
          append.events.length,
          ...Object.keys(spec.fields).map((f) => fields[f] ?? null),
        )
      return
    }
    const appended = sql.appended(spec).run(append.revision, lines, append.events.length, append.key, append.after)
    if (appended.changes !== 1) throw new Error(`${append.key} is no longer at revision ${append.after}`)
  }
  return {
    async fillViews(collection, views) {
      const spec = specOf(collection)
      // Encoded before the write lock is taken, as a commit's documents are.
      const items = views.map((item) => ({
        key: item.key,
        revision: item.revision,
        views: encodeViews(spec, item.views),
        folded: item.folded === undefined ? undefined : encode(spec, JSON.stringify(item.folded)),
      }))
      return writeWhenFree(db, () => fillViews.immediate(spec, items))
    },
    async commit(projections, writes, checkpoint) {
      // Serialised and compressed before the write lock is taken: another
      // writer of the file (a rebuild's other part, the live projector) waits
      // only for the rows. A commit on the request thread (a reaction's
      // checkpoint) waits for the projector's on a timer, never asleep.
      const encoded = writes.map(encodeWrite)
      await writeWhenFree(db, () => commit.immediate(projections, encoded, checkpoint))
    },
  }
}
