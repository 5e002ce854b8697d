/**
 * The service beside the limits of its storage, in one run on one machine:
 * the same batches of `POST /v1/trackers` events appended
 *   (a) as raw rows with better-sqlite3, 1000 rows a transaction, into the
 *       event store's own table (the storage's limit), before (b) and again
 *       after (d);
 *   (b) through the event store port, one atomic append a batch, no HTTP and
 *       no projection;
 *   (c) through the Emmett SQLite event store (@event-driven-io/emmett-sqlite),
 *       one `appendToStream` a stream, as its API offers;
 *   (d) through the whole service over HTTP from 2 clients, the projection
 *       keeping up (each answer waits until its batch is projected);
 * each rate with its ratio to the mean of (a)'s two runs and the CPU time a
 * batch costs by thread;
 * then the replay of the log (b) wrote, in a process of its own: raw read
 * against the rebuild of the orders projection.
 * Targets: (d) ≥ 25,000 new trackers/s and ≥ 13 % of (a), median batch < 100 ms,
 * visible within 50 ms; repeated items ≥ 20,000/s; rebuild ≥ 40 % of the raw read.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EVENTS_TABLE, INSERT_EVENT, openEventsFile } from '../shared/infra/event-store/sqlite-schema.ts'
import type { AppendRequest } from '../shared/infra/event-store/port.ts'
import {
  benchStores,
  benchServerProcess,
  collectGarbage,
  conditions,
  cpuMeter,
  decidedAppends,
  eventRows,
  eventsOf,
  measureBatches,
  ms,
  msUntil,
  replayInOwnProcess,
  trackerBatch,
  viewsRendered,
} from './support.ts'

const BATCHES = Number(process.env.BENCH_BATCHES ?? 60)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 6)
/** Emmett opens a connection for each append to a file: a few batches tell its rate. */
const EMMETT_BATCHES = Math.min(BATCHES, Number(process.env.BENCH_EMMETT_BATCHES ?? 10))
const BATCH_SIZE = 1000
/**
 * Emmett and the sqlite3 driver it needs are not in the default install
 * (sqlite3 compiles from source for this benchmark alone): (c) runs once they
 * are installed beside the project.
 */
const EMMETT_INSTALL =
  'npm install --no-save @event-driven-io/emmett@0.38.5 @event-driven-io/emmett-sqlite@0.38.5 sqlite3@5.1.7'

interface EmmettSqlite {
  STREAM_DOES_NOT_EXIST: unknown
  getSQLiteEventStore(options: { fileName: string }): {
    appendToStream(stream: string, events: { type: string; data: unknown }[], options: object): Promise<unknown>
  }
}

/** Emmett's SQLite store when it is installed; its module names are variables, so a checkout without it type-checks. */
async function loadEmmett(): Promise<EmmettSqlite | undefined> {
  const modules = ['@event-driven-io/emmett', '@event-driven-io/emmett-sqlite']
  try {
    const [core, sqlite] = await Promise.all(modules.map((name) => import(name)))
    return { STREAM_DOES_NOT_EXIST: core.STREAM_DOES_NOT_EXIST, getSQLiteEventStore: sqlite.getSQLiteEventStore }
  } catch {
    return undefined
  }
}
const ROWS_PER_TRANSACTION = 1000
const CONCURRENCY = 2

const inProcess = await benchStores()
const folder = mkdtempSync(join(tmpdir(), 'shiplog-compare-'))
// Every contender appends the same events: decided once by the service's own decider.
const batches: AppendRequest[][] = []
for (let b = 0; b < WARMUP + BATCHES; b++)
  batches.push(await decidedAppends(inProcess.runtime, inProcess.accountId, trackerBatch(b, BATCH_SIZE)))
const measured = batches.slice(WARMUP)
const events = measured.reduce((sum, b) => sum + eventsOf(b), 0)
const eventBytes =
  measured[0]!
    .flatMap((a) => a.events)
    .reduce((sum, e) => sum + JSON.stringify(e.data).length + JSON.stringify(e.metadata).length, 0) /
  eventsOf(measured[0]!)

interface Figure {
  label: string
  eventsPerSecond: number
  trackersPerSecond: number
  cpu: string
  note?: string
}
const figures: Figure[] = []
let emmettFailure: string | undefined

/** Times `append` over the measured batches after the warm-up ones, with this process's CPU by thread. */
async function timeAppends(
  label: string,
  append: (appends: AppendRequest[]) => Promise<unknown> | unknown,
  count = BATCHES,
) {
  for (const appends of batches.slice(0, WARMUP)) await append(appends)
  collectGarbage()
  const cpu = cpuMeter(process.pid, 'CPU')
  const t0 = performance.now()
  for (const appends of measured.slice(0, count)) await append(appends)
  const seconds = (performance.now() - t0) / 1000
  figures.push({
    label,
    eventsPerSecond: measured.slice(0, count).reduce((sum, b) => sum + eventsOf(b), 0) / seconds,
    trackersPerSecond: (count * BATCH_SIZE) / seconds,
    cpu: cpu.per(count, 'batch'),
    note: count < BATCHES ? `${count} batches` : undefined,
  })
}

// (a) Raw rows, serialised beforehand: what SQLite itself allows. Measured
// before (b) and again after (d), each time into a new file: a shared host's
// load drifts within a run, and the ratio is taken to the mean of the two.
const rows = new Map(batches.map((appends) => [appends, eventRows(appends)]))
async function timeRawRows(label: string, file: string) {
  const db = openEventsFile(join(folder, file))
  db.exec(EVENTS_TABLE)
  const insert = db.prepare(INSERT_EVENT)
  const insertRows = db.transaction((chunk: unknown[][]) => {
    for (const row of chunk) insert.run(...row)
  })
  await timeAppends(label, (appends) => {
    const batchRows = rows.get(appends)!
    for (let i = 0; i < batchRows.length; i += ROWS_PER_TRANSACTION)
      insertRows(batchRows.slice(i, i + ROWS_PER_TRANSACTION))
  })
  db.close()
}
await timeRawRows('(a) raw better-sqlite3 rows', 'raw.sqlite')

// (b) The event store port, as the command API appends: checks and serialises each event.
await timeAppends('(b) event store port', (appends) => inProcess.runtime.eventStore.append(appends))

// (c) Emmett's SQLite event store, one stream at a time.
// Its appends now and then fail with its own SQLITE_BUSY ("SQL statements in
// progress"): the run then reports that and goes on to (d).
const emmettSqlite = await loadEmmett()
if (!emmettSqlite) {
  emmettFailure = `(c) Emmett SQLite: skipped, not installed (${EMMETT_INSTALL})`
} else {
  const emmett = emmettSqlite.getSQLiteEventStore({ fileName: join(folder, 'emmett.sqlite') })
  await timeAppends(
    '(c) Emmett SQLite',
    async (appends) => {
      for (const a of appends)
        await emmett.appendToStream(
          a.stream,
          a.events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> })),
          { expectedStreamVersion: emmettSqlite.STREAM_DOES_NOT_EXIST },
        )
    },
    EMMETT_BATCHES,
  ).catch((error: unknown) => {
    emmettFailure = `(c) Emmett SQLite: stopped by its own error (${error instanceof Error ? error.message : String(error)})`
  })
}

// Replay: the log (b) wrote, read raw and rebuilt into the orders projection.
const replay = await replayInOwnProcess(inProcess)

// (d) The service over HTTP, in a process of its own, the same items.
const server = await benchServerProcess()
const body = (b: number) => JSON.stringify({ trackers: trackerBatch(b, BATCH_SIZE) })
const warm = await measureBatches(
  server,
  '/v1/trackers',
  Array.from({ length: WARMUP }, (_, b) => body(b)),
  { concurrency: CONCURRENCY, itemsPerBatch: BATCH_SIZE },
)
const bodies = Array.from({ length: BATCHES }, (_, b) => body(WARMUP + b))
const fresh = await measureBatches(server, '/v1/trackers', bodies, {
  concurrency: CONCURRENCY,
  itemsPerBatch: BATCH_SIZE,
})
const visible = await msUntil(
  server,
  `/v2/orders?order_number=B${WARMUP + BATCHES - 1}-O${BATCH_SIZE / 2 - 1}`,
  (page) => page.data.length > 0,
)
const idle = await viewsRendered(server)
const repeated = await measureBatches(server, '/v1/trackers', bodies, {
  concurrency: CONCURRENCY,
  itemsPerBatch: BATCH_SIZE,
})
await server.close()
await timeRawRows('(a) the same, after (d)', 'raw-after.sqlite')
rmSync(folder, { recursive: true, force: true })
const serviceEvents = Number(fresh.lastPosition - warm.lastPosition)
figures.push({
  label: '(d) service over HTTP',
  eventsPerSecond: (serviceEvents / (BATCHES * BATCH_SIZE)) * fresh.rate,
  trackersPerSecond: fresh.rate,
  cpu: `${fresh.cpu}; ${fresh.clientCpu}`,
  note: `batch median ${ms(fresh.median)}, p99 ${ms(fresh.p99)}; visible ${ms(visible)} after the last answer`,
})

const rawFigures = figures.filter((f) => f.label.startsWith('(a)'))
const raw = rawFigures.reduce((sum, f) => sum + f.eventsPerSecond, 0) / rawFigures.length
const count = (n: number) => Math.round(n).toLocaleString('en').padStart(9)
console.log(
  `compare: ${BATCHES} batches × ${BATCH_SIZE} new trackers (${Math.round(events / BATCHES).toLocaleString('en')} events a batch, ${Math.round(eventBytes)} bytes of JSON an event) after ${WARMUP} warm-up batches; ${conditions(true)}`,
)
console.log(`${''.padEnd(30)}  events/s  trackers/s  of (a), the mean of its two runs`)
for (const f of [...figures].sort((x, y) => x.label.slice(0, 3).localeCompare(y.label.slice(0, 3)))) {
  console.log(
    `${f.label.padEnd(30)} ${count(f.eventsPerSecond)}   ${count(f.trackersPerSecond)}  ${`${((f.eventsPerSecond / raw) * 100).toFixed(1)} %`.padStart(6)}   ${f.cpu}${f.note ? `; ${f.note}` : ''}`,
  )
}
if (emmettFailure) console.log(emmettFailure)
// The ratio the ingest target is stated in: new trackers a second against raw rows a second, though a tracker is several rows.
console.log(
  `(d) new trackers/s against (a) rows/s: ${((fresh.rate / raw) * 100).toFixed(1)} % (${(events / (BATCHES * BATCH_SIZE)).toFixed(1)} rows a tracker)`,
)
console.log(
  `(d) repeated items             ${''.padStart(9)}   ${count(repeated.rate)}           ${repeated.cpu}; batch median ${ms(repeated.median)}`,
)
console.log(
  `replay of ${replay.events.toLocaleString('en')} events: raw read ${count(replay.raw).trim()} events/s, orders projection rebuild ${count(replay.rebuild).trim()} events/s (${((replay.rebuild / replay.raw) * 100).toFixed(0)} % of the raw read); then the full views of ${replay.views.toLocaleString('en')} orders in ${replay.viewSeconds.toFixed(1)} s`,
)
console.log(`(d) after its last batch: ${idle}`)
