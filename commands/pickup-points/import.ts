import { pipeline } from 'node:stream'
import { setImmediate } from 'node:timers/promises'
import { CsvError, Parser, type Options } from 'csv-parse'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { expectedAfter } from '../../shared/infra/event-store/port.ts'
import type { DomainEvent } from '../../shared/domain/events/index.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import type { JobResult } from '../../shared/domain/events/job-events.ts'
import {
  decideImportRow,
  evolvePickupPointState,
  pickupPointStream,
  type PickupPointState,
} from '../../shared/domain/pickup-points/pickup-point.ts'
import { toNewEvents } from '../execute.ts'
import { JobFailure, type JobContext } from '../jobs/context.ts'
import { rowChecker, type RowChecker } from '../../shared/domain/pickup-points/row.ts'

type PickupPointImported = Extract<DomainEvent, { type: 'PickupPointImported' }>

/**
 * Records parsed, decided and appended together, with their results, in one
 * atomic append (the first chunk gives one of them to the header). A chunk's
 * rows live until it is appended: small enough that they die young.
 */
const CHUNK_ROWS = 500

/**
 * csv-parse's stream, giving the file's records in arrays of CHUNK_ROWS, each
 * paired with the line it starts on (a quoted value may hold line breaks):
 * one step of the loop below per chunk instead of per record. The line is read
 * from the parser's live counter as the record is pushed: the `info` option
 * would copy all its counters into every record, a third of the parser's time
 * on a large file.
 */
class NumberedRecords extends Parser {
  #lines: Line[] = []

  constructor(options: Options) {
    // One chunk read ahead at most: what the import holds is a chunk or two, whatever the file.
    super({ ...options, readableHighWaterMark: 1 } as Options)
  }

  override push(record: unknown) {
    if (record === null) {
      if (this.#lines.length > 0) super.push(this.#lines)
      return super.push(null)
    }
    // The counter has passed the record's own line breaks: step back over them.
    this.#lines.push({ fields: record as string[], line: this.info.lines - lineBreaks(record as string[]) })
    // The parser goes on either way; the stream holds it back once a chunk waits unread.
    if (this.#lines.length < CHUNK_ROWS) return true
    const lines = this.#lines
    this.#lines = []
    return super.push(lines)
  }
}

/**
 * Bytes given to the parser at a time. Blobs are read a megabyte at a time (see
 * the file blob store), and csv-parse parses all it is given at once, pushing
 * every record whether or not the ones before were read: given a megabyte, it
 * held thousands of rows' strings long enough for the young generation to
 * promote them. In 64 KiB slices the stream holds it back after each chunk,
 * and the main thread never parses for long at once.
 */
const PARSE_SLICE_BYTES = 64 * 1024

async function* slices(source: AsyncIterable<Buffer>) {
  for await (const buffer of source) {
    for (let at = 0; at < buffer.length; at += PARSE_SLICE_BYTES) yield buffer.subarray(at, at + PARSE_SLICE_BYTES)
  }
}

const lineBreaks = (fields: readonly string[]) => {
  let count = 0
  for (const field of fields)
    if (field.includes('\n') || field.includes('\r')) count += field.match(/\r\n|\r|\n/g)!.length
  return count
}

/**
 * The pickup point import: streams the uploaded CSV through csv-parse (memory
 * stays flat), validates each row and upserts by merchant_id. Results are one
 * per data row, in file order; a resumed job skips the rows already recorded.
 */
export async function importPickupPoints(ctx: JobContext) {
  if (!ctx.job.blob) throw new JobFailure('The job has no file')
  // pipeline, not pipe: a failed read (a blob gone, its store unreachable) ends
  // the loop below with its error instead of leaving it waiting for records.
  // A row of the wrong length is that row's fault (its result says so), not the file's.
  const parser = new NumberedRecords({
    delimiter: ';',
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
  })
  const records = pipeline(ctx.rt.blobs.read(ctx.job.blob), slices, parser, () => {})
  const done = ctx.job.items_processed
  let rows: RowChecker | undefined
  let seen = 0
  try {
    for await (const lines of records as AsyncIterable<Line[]>) {
      let chunk = lines
      if (!rows) {
        const header = rowChecker(chunk[0]!.fields)
        if (!header.ok) throw new JobFailure(headerFault(chunk[0]!.fields, header.missing))
        rows = header.checker
        chunk = chunk.slice(1)
      }
      // A resumed job skips the rows whose results it recorded.
      const skip = Math.min(Math.max(done - seen, 0), chunk.length)
      seen += chunk.length
      if (skip > 0) chunk = chunk.slice(skip)
      if (chunk.length > 0) await importChunk(ctx, rows, chunk)
      // Let the requests waiting on this thread in between chunks: parsing and appending
      // go on in promise callbacks, which would otherwise run chunk after chunk.
      await setImmediate()
    }
  } catch (error) {
    if (error instanceof CsvError) throw new JobFailure(`The file is not a valid CSV: ${error.message}`)
    throw error
  }
}

/** A data row of the file and the line it starts on. */
type Line = { fields: string[]; line: number }

async function importChunk(ctx: JobContext, rows: RowChecker, lines: Line[]) {
  const checked = lines.map(({ fields, line }) => {
    const check = rows.check(fields)
    return check.ok
      ? { line, check, stream: pickupPointStream(ctx.accountId, check.fields.merchant_id) }
      : { line, check, merchantId: rows.merchantId(fields) }
  })
  const streams = [...new Set(checked.flatMap((c) => (c.stream === undefined ? [] : [c.stream])))]
  const histories = await ctx.rt.eventStore.readStreamsToFold(streams.map((stream) => ({ stream })))
  const points = new Map<string, { state?: PickupPointState; revision: number; events: DomainEvent[] }>()
  streams.forEach((stream, i) => {
    const history = asDomainEvents<PickupPointImported>(histories[i]!)
    const state = history.reduce<PickupPointState | undefined>((p, e) => evolvePickupPointState(p, e.data), undefined)
    points.set(stream, { state, revision: history.length - 1, events: [] })
  })
  const at = toUnixSeconds(ctx.rt.clock.now())
  const results: JobResult[] = checked.map(({ line, check, stream, merchantId }) => {
    if (!check.ok) return { status: 422, body: { merchant_id: merchantId ?? null, line, errors: check.errors } }
    const point = points.get(stream!)!
    const created = point.state === undefined
    const command = { fields: check.fields, job_id: ctx.job.id, line, at, ids: ctx.rt.ids }
    for (const event of decideImportRow(command, point.state)) {
      point.events.push(event)
      point.state = evolvePickupPointState(point.state, event.data)
    }
    return { status: created ? 201 : 200, body: { id: point.state!.id, merchant_id: check.fields.merchant_id, line } }
  })
  // The events hold only what the row checker accepted and the ids above: they
  // are not parsed again against their schemas (the import's e2e test checks
  // every event it wrote against them).
  const metadata = ctx.metadata()
  await ctx.appendWithProgress(
    [...points].map(([stream, p]) => ({
      stream,
      expected: expectedAfter(p.revision),
      events: toNewEvents(p.events, metadata, { prechecked: true }),
    })),
    { type: 'RecordItems', chunk_id: ctx.rt.ids.next(), results, at },
    { prechecked: true },
  )
}

/** Why a header row is refused: most often a file separated by commas, which reads as one column. */
function headerFault(header: readonly string[], missing: readonly string[]) {
  if (header.length === 1 && header[0]!.includes(',')) {
    return 'The CSV must be separated by semicolons (;), not commas: its header row reads as a single column'
  }
  return `The CSV header lacks the required columns: ${missing.join(', ')}`
}
