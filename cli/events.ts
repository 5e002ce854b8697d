import type { Writable } from 'node:stream'
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

/**
 * Streams the log as NDJSON, one event a line, page by page with
 * backpressure: memory stays constant whatever the size of the history.
 */
export async function exportEvents(rt: Pick<Runtime, 'eventStore'>, filter: ExportFilter, out: Writable) {
  let after: bigint | undefined
  let written = 0
  // A reader that goes away (`| head`) ends the export quietly, not with EPIPE.
  let gone = false
  const goneAway = () => {
    gone = true
  }
  out.on('error', goneAway)
  out.on('close', goneAway)
  for (;;) {
    if (gone) return written
    const page = await rt.eventStore.readAll({ after, limit: PAGE, types: filter.types })
    if (page.length === 0) return written
    after = page[page.length - 1]!.position
    for (const e of page) {
      if (!matches(e, filter)) continue
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
  }
}
