import { CsvError, parse } from 'csv-parse'
import { toUnixSeconds } from '../../shared/clock.ts'
import { expectedAfter } from '../../shared/event-store/port.ts'
import { asDomainEvents, type DomainEvent } from '../../shared/events/index.ts'
import type { JobResult } from '../../shared/events/job-events.ts'
import type { PickupPointFields } from '../../shared/events/pickup-point-events.ts'
import { evolvePickupPoint, pickupPointStream, type PickupPointDoc } from '../../shared/pickup-points/pickup-point.ts'
import { toNewEvents } from '../execute.ts'
import { JobFailure, type JobContext } from '../jobs/run.ts'
import { checkRow, missingColumns, type Row } from './row.ts'

type PickupPointImported = Extract<DomainEvent, { type: 'PickupPointImported' }>

/** Rows decided and appended together, with their results, in one atomic append. */
const CHUNK_ROWS = 1000

/**
 * The pickup point import: streams the uploaded CSV through csv-parse (memory
 * stays flat), validates each row and upserts by merchant_id. Results are one
 * per data row, in file order; a resumed job skips the rows already recorded.
 */
export async function importPickupPoints(ctx: JobContext) {
  if (!ctx.job.blob) throw new JobFailure('The job has no file')
  const parser = ctx.rt.blobs.read(ctx.job.blob).pipe(
    parse({
      delimiter: ';',
      bom: true,
      trim: true,
      skip_empty_lines: true,
      info: true,
      columns: (header: string[]) => {
        const missing = missingColumns(header)
        if (missing.length > 0) throw new JobFailure(`The CSV header lacks the required columns: ${missing.join(', ')}`)
        return header
      },
    }),
  )
  const done = ctx.job.items_processed
  let index = 0
  let chunk: { row: Row; line: number }[] = []
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Row; info: { lines: number } }>) {
      if (index++ < done) continue
      chunk.push({ row: record, line: info.lines })
      if (chunk.length === CHUNK_ROWS) {
        await importChunk(ctx, chunk)
        chunk = []
      }
    }
  } catch (error) {
    if (error instanceof CsvError) throw new JobFailure(`The file is not a valid CSV: ${error.message}`)
    if ((error as { cause?: unknown }).cause instanceof JobFailure) throw (error as { cause: JobFailure }).cause
    throw error
  }
  if (chunk.length > 0) await importChunk(ctx, chunk)
}

async function importChunk(ctx: JobContext, rows: { row: Row; line: number }[]) {
  const checked = rows.map(({ row, line }) => ({ line, check: checkRow(row), merchantId: row.merchant_id?.trim() ?? null }))
  const streams = [...new Set(checked.flatMap((c) => (c.check.ok ? [pickupPointStream(ctx.accountId, c.check.fields.merchant_id)] : [])))]
  const histories = await Promise.all(streams.map((s) => ctx.rt.eventStore.readStream(s)))
  const points = new Map<string, { doc?: PickupPointDoc; revision: number; events: DomainEvent[] }>()
  streams.forEach((s, i) => {
    const history = histories[i]!
    const doc = asDomainEvents<PickupPointImported>(history).reduce<PickupPointDoc | undefined>((p, e) => evolvePickupPoint(p, e.data), undefined)
    points.set(s, { doc, revision: history.length - 1, events: [] })
  })
  const at = toUnixSeconds(ctx.rt.clock.now())
  const results: JobResult[] = checked.map(({ line, check, merchantId }) => {
    if (!check.ok) return { status: 422, body: { merchant_id: merchantId || null, line, errors: check.errors } }
    const point = points.get(pickupPointStream(ctx.accountId, check.fields.merchant_id))!
    const created = point.doc === undefined
    if (created || !sameFields(point.doc!, check.fields)) {
      const data = { pickup_point_id: point.doc?.id ?? ctx.rt.ids.next(), fields: check.fields, job_id: ctx.job.id, line, at }
      point.events.push({ type: 'PickupPointImported', data })
      point.doc = evolvePickupPoint(point.doc, data)
    }
    return { status: created ? 201 : 200, body: { id: point.doc!.id, merchant_id: check.fields.merchant_id, line } }
  })
  const metadata = ctx.metadata()
  await ctx.appendWithProgress(
    [...points].map(([stream, p]) => ({
      stream,
      expected: expectedAfter(p.revision),
      events: toNewEvents(p.events, metadata),
    })),
    { type: 'JobItemsProcessed', data: { chunk_id: ctx.rt.ids.next(), results, at } },
  )
}

const sameFields = (doc: PickupPointDoc, fields: PickupPointFields) =>
  JSON.stringify(Object.keys(fields).map((k) => doc[k as keyof PickupPointFields])) === JSON.stringify(Object.values(fields))
