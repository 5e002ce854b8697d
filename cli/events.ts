import type { Writable } from 'node:stream'
import { ParquetSchema, ParquetWriter } from '@dsnp/parquetjs'
import type { RecordedEvent } from '../shared/infra/event-store/port.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

export interface ExportFilter {
  /** A stream name, or a prefix ending in `*` (`order-*`). */
  stream?: string
  types?: string[]
  /** Unix ms, inclusive. */
  since?: number
  /** Unix ms, exclusive. */
  until?: number
  account?: number
}

const PAGE = 1000

export const matches = (e: RecordedEvent, f: ExportFilter) =>
  (f.stream === undefined ||
    (f.stream.endsWith('*') ? e.stream.startsWith(f.stream.slice(0, -1)) : e.stream === f.stream)) &&
  (f.since === undefined || e.metadata.recordedAt >= f.since) &&
  (f.until === undefined || e.metadata.recordedAt < f.until) &&
  (f.account === undefined || e.metadata.accountId === f.account)

/** The log's events that pass the filter, oldest first, a page at a time: memory stays flat whatever its size. */
async function* eventsOf(rt: Pick<Runtime, 'eventStore'>, filter: ExportFilter) {
  let after: bigint | undefined
  for (;;) {
    const page = await rt.eventStore.readAll({ after, limit: PAGE, types: filter.types })
    if (page.length === 0) return
    after = page[page.length - 1]!.position
    for (const e of page) if (matches(e, filter)) yield e
  }
}

/**
 * Streams the log as NDJSON, one event a line, with backpressure: memory
 * stays constant whatever the size of the history.
 */
export async function exportEvents(rt: Pick<Runtime, 'eventStore'>, filter: ExportFilter, out: Writable) {
  let written = 0
  // A reader that goes away (`| head`) ends the export quietly, not with EPIPE.
  let gone = false
  const goneAway = () => {
    gone = true
  }
  out.on('error', goneAway)
  out.on('close', goneAway)
  for await (const e of eventsOf(rt, filter)) {
    if (gone) return written
    const line = JSON.stringify({
      stream: e.stream,
      revision: e.revision,
      position: e.position.toString(),
      type: e.type,
      data: e.data,
      metadata: e.metadata,
      recorded_at: new Date(e.metadata.recordedAt).toISOString(),
    })
    written++
    if (!out.write(`${line}\n`)) await new Promise((r) => out.once('drain', r).once('close', r))
    if (gone) return written
  }
  return written
}

/** The Parquet file's columns: typed, so an analyst's query needs no casts; `data` and `metadata` are JSON text. */
const parquetSchema = new ParquetSchema({
  position: { type: 'INT64' },
  stream: { type: 'UTF8', compression: 'SNAPPY' },
  revision: { type: 'INT64' },
  type: { type: 'UTF8', compression: 'SNAPPY' },
  account_id: { type: 'INT64' },
  recorded_at: { type: 'TIMESTAMP_MILLIS' },
  data: { type: 'UTF8', compression: 'SNAPPY' },
  metadata: { type: 'UTF8', compression: 'SNAPPY' },
})

/** Rows a row group holds before it is written out: what the writer keeps in memory at most. */
export const PARQUET_ROW_GROUP = 10_000

/**
 * Writes the log's events to a Parquet file, oldest first, a row group at a
 * time (memory flat on any log); the same filters as the NDJSON export.
 */
export async function exportEventsParquet(rt: Pick<Runtime, 'eventStore'>, filter: ExportFilter, path: string) {
  const writer = await ParquetWriter.openFile(parquetSchema, path, { rowGroupSize: PARQUET_ROW_GROUP })
  let written = 0
  try {
    for await (const e of eventsOf(rt, filter)) {
      await writer.appendRow({
        position: e.position,
        stream: e.stream,
        revision: BigInt(e.revision),
        type: e.type,
        account_id: BigInt(e.metadata.accountId),
        recorded_at: new Date(e.metadata.recordedAt),
        data: JSON.stringify(e.data),
        metadata: JSON.stringify(e.metadata),
      })
      written++
    }
  } finally {
    await writer.close()
  }
  return written
}
