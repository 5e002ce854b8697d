/**
 * The service on PostgreSQL beside the limits of PostgreSQL itself, in one
 * run: the same batches of `POST /v1/trackers` events written
 *   (a) as raw rows with `COPY … FROM STDIN` (pg-copy-streams), a batch a
 *       transaction, into a table of the event store's shape;
 *   (b) as raw rows with one multi-row `INSERT … VALUES (…), (…), …` a batch;
 *   (c) through the PostgreSQL event store port, one atomic append a batch;
 *   (d) through the whole service over HTTP (DATABASE_URL) from 2 clients,
 *       each answer waiting until its batch is projected;
 * each rate with its ratio to (a). DATABASE_URL names the server, else
 * 127.0.0.1:5432/test; each part writes in a schema of its own, dropped after.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { AppendRequest } from '../shared/infra/event-store/port.ts'
import { createPostgresEventStore } from '../shared/infra/event-store/postgres.ts'
import {
  benchServerProcess,
  benchStores,
  conditions,
  decidedAppends,
  eventRows,
  eventsOf,
  measureBatches,
  ms,
  trackerBatch,
  withoutCredentials,
} from './support.ts'

const BATCHES = Number(process.env.BENCH_BATCHES ?? 30)
/**
 * Batches each part writes before it is timed. Fifteen, not four: after
 * four, V8's compiler threads still took a sixth of the server's CPU in (d).
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 15)
const BATCH_SIZE = 1000
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
// The batches are decided on embedded stores; each part below names its own schema.
delete process.env.DATABASE_URL

const admin = new pg.Client({ connectionString: url })
try {
  await admin.connect()
} catch (error) {
  console.log(`postgres: skipped, no PostgreSQL answers at ${url} (${(error as Error).message}); set DATABASE_URL`)
  process.exit(0)
}
const version = ((await admin.query('SHOW server_version')).rows[0] as { server_version: string }).server_version
const schemas: string[] = []
const schemaFor = (part: string) => {
  const schema = `bench_${part}_${randomUUID().replaceAll('-', '').slice(0, 8)}`
  schemas.push(schema)
  return schema
}

const inProcess = await benchStores()
const batches: AppendRequest[][] = []
for (let b = 0; b < WARMUP + BATCHES; b++)
  batches.push(await decidedAppends(inProcess.runtime, inProcess.accountId, trackerBatch(b, BATCH_SIZE)))
await inProcess.close()
const measured = batches.slice(WARMUP)
const events = measured.reduce((sum, b) => sum + eventsOf(b), 0)

const figures: { label: string; eventsPerSecond: number; trackersPerSecond: number; note?: string }[] = []
async function timeAppends(label: string, append: (appends: AppendRequest[]) => Promise<unknown>) {
  for (const appends of batches.slice(0, WARMUP)) await append(appends)
  const t0 = performance.now()
  for (const appends of measured) await append(appends)
  const seconds = (performance.now() - t0) / 1000
  figures.push({ label, eventsPerSecond: events / seconds, trackersPerSecond: (BATCHES * BATCH_SIZE) / seconds })
}

/** Rows of the event store's table, positions counted from 1 across the run. */
let position = 0
const rowsOf = (appends: AppendRequest[]) => eventRows(appends).map((row) => [++position, ...row])
const TABLE = `CREATE TABLE events (
  position bigint PRIMARY KEY, id text NOT NULL UNIQUE, stream text NOT NULL, revision integer NOT NULL,
  type text NOT NULL, data json NOT NULL, metadata json NOT NULL, recorded_at bigint NOT NULL,
  UNIQUE (stream, revision))`
const rawClient = async (part: string) => {
  const schema = schemaFor(part)
  await admin.query(`CREATE SCHEMA ${schema}`)
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` })
  await client.connect()
  await client.query(TABLE)
  return client
}

// (a) COPY: what PostgreSQL itself takes. Timed before the others and again after (d): the machine's
// speed, and PostgreSQL's with what it has cached, drift within a run.
async function rawCopy(label: string) {
  const client = await rawClient('copy')
  const copyText = (v: unknown) => String(v).replaceAll('\\', '\\\\').replaceAll('\t', '\\t').replaceAll('\n', '\\n')
  position = 0
  await timeAppends(label, async (appends) => {
    const text = `${rowsOf(appends)
      .map((row) => row.map(copyText).join('\t'))
      .join('\n')}\n`
    await client.query('BEGIN')
    await pipeline(Readable.from([text]), client.query(copyFrom('COPY events FROM STDIN')))
    await client.query('COMMIT')
  })
  await client.end()
}
await rawCopy('(a) raw COPY')

// (b) One multi-row INSERT a batch, eight parameters a row.
{
  const client = await rawClient('insert')
  position = 0
  await timeAppends('(b) raw multi-row INSERT', async (appends) => {
    const rows = rowsOf(appends)
    const values = rows.map((_, r) => `(${Array.from({ length: 8 }, (_, c) => `$${r * 8 + c + 1}`).join(', ')})`)
    await client.query(`INSERT INTO events VALUES ${values.join(', ')}`, rows.flat())
  })
  await client.end()
}

// (c) The event store port.
{
  const store = await createPostgresEventStore(url, schemaFor('port'))
  await timeAppends('(c) event store port', (appends) => store.append(appends))
  await store.close()
}

// (d) The service over HTTP on PostgreSQL, in a process of its own.
const serviceSchema = schemaFor('service')
const server = await benchServerProcess({
  DATABASE_URL: `${url}${url.includes('?') ? '&' : '?'}schema=${serviceSchema}`,
  SHIPLOG_SECRET_KEY: randomBytes(32).toString('hex'),
})
const body = (b: number) => JSON.stringify({ trackers: trackerBatch(b, BATCH_SIZE) })
await measureBatches(
  server,
  '/v1/trackers',
  Array.from({ length: WARMUP }, (_, b) => body(b)),
  { concurrency: 2, itemsPerBatch: BATCH_SIZE },
)
const fresh = await measureBatches(
  server,
  '/v1/trackers',
  Array.from({ length: BATCHES }, (_, b) => body(WARMUP + b)),
  { concurrency: 2, itemsPerBatch: BATCH_SIZE },
)
await server.close()
figures.push({
  label: '(d) service over HTTP',
  eventsPerSecond: (events / (BATCHES * BATCH_SIZE)) * fresh.rate,
  trackersPerSecond: fresh.rate,
  note: `batch median ${ms(fresh.median)}, p99 ${ms(fresh.p99)}; ${fresh.cpu}`,
})

await rawCopy('(a) the same, after (d)')
for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
await admin.end()

const byLabel = (start: string) => figures.find((f) => f.label.startsWith(start))!
const raw = (byLabel('(a) raw COPY').eventsPerSecond + byLabel('(a) the same').eventsPerSecond) / 2
const count = (n: number) => Math.round(n).toLocaleString('en').padStart(9)
console.log(
  `postgres: ${BATCHES} batches × ${BATCH_SIZE} new trackers (${Math.round(events / BATCHES)} events a batch) after ${WARMUP} warm-up batches; ${conditions(true, `PostgreSQL ${version} on the same machine (${withoutCredentials(url)})`)}`,
)
console.log(`${''.padEnd(28)}  events/s  trackers/s  of the mean of (a)`)
for (const f of figures) {
  console.log(
    `${f.label.padEnd(28)} ${count(f.eventsPerSecond)}   ${count(f.trackersPerSecond)}  ${`${((f.eventsPerSecond / raw) * 100).toFixed(1)} %`.padStart(6)}${f.note ? `   ${f.note}` : ''}`,
  )
}
// The ratio the target is stated in: new trackers a second against raw rows a second.
console.log(
  `(d) new trackers/s against the mean of (a) rows/s: ${((byLabel('(d)').trackersPerSecond / raw) * 100).toFixed(1)} % (${(events / (BATCHES * BATCH_SIZE)).toFixed(1)} rows a tracker)`,
)
