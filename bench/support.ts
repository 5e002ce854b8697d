import http from 'node:http'
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createAccount } from '../commands/accounts/change-account.ts'
import { startServer } from '../server/start.ts'
import { createAccountWithCli, processEnvironment, spawnServer } from '../tests/support/process.ts'
import { metric } from '../tests/support/progress.ts'
import { type Config, loadConfig } from '../shared/infra/config.ts'
import { runsCompiled } from '../shared/infra/compiled.mjs'
import { openRuntime, type Runtime } from '../shared/infra/runtime.ts'
import { ordersProjection, projections } from '../projectors/all-projections.ts'
import { runProjections } from '../projectors/runner.ts'
import { createOrderStates, planTrackerUpserts } from '../commands/trackers/upsert.ts'
import type { TrackerItem } from '../commands/trackers/schema.ts'
import type { AppendRequest } from '../shared/infra/event-store/port.ts'
import type { WalCheckpoints } from '../shared/infra/sqlite/checkpoints.ts'
import { ORDER_FULL_VIEW } from '../shared/infra/read-store/collections.ts'
import type { CommandRequest } from '../commands/execute.ts'

/** A server with embedded stores in a temporary folder and one account, as a benchmark needs it. */
export async function benchServer(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-bench-'))
  const server = await startServer(
    loadConfig({
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      QUEUE_NAME: `bench-${randomUUID()}`,
      ...env,
    }),
  )
  const account = await createAccount(server.runtime, 'Bench')
  return {
    ...server,
    dataDir,
    key: account.private_key,
    accountId: account.id,
    async close() {
      await server.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * The embedded stores alone, in a temporary folder: no HTTP, no projector and
 * no Redis, for the benchmarks that append and replay in their own process
 * (a long synchronous append would otherwise stall a Redis client's connect).
 */
export async function benchStores(options: { walCheckpoints?: WalCheckpoints } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-bench-'))
  const runtime = await openRuntime(loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), options)
  return {
    runtime,
    dataDir,
    /** Events need an account id; the stores do not check that it exists. */
    accountId: 1,
    async close() {
      await runtime.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

/**
 * Runs `count` timed rounds one after the other; their median rate, each
 * round's rate, and the rounds: a round lasting a few seconds can meet one
 * of the machine's pauses, which the median leaves out.
 */
export async function medianOfRounds<R>(count: number, round: (i: number) => Promise<R>, rateOf: (r: R) => number) {
  const runs: R[] = []
  for (let i = 0; i < count; i++) runs.push(await round(i))
  const rates = runs.map(rateOf)
  return { rate: percentile(rates, 50), rates, runs }
}

/** The node flags of `npm start` (package.json's start script): the server's heap and GC threads. */
const startFlags = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--'))
/** BENCH_SERVER_NODE_ARGS: more node flags for the server (--cpu-prof, say; a flag given again wins). */
const benchNodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
/** The node flags a benchmark's server process runs with: `npm start`'s, then BENCH_SERVER_NODE_ARGS. */
export const serverNodeArgs = [...startFlags, ...benchNodeArgs]

/** A connection string as printed: without its user and password. */
export const withoutCredentials = (url: string) => url.replace(/\/\/[^@]*@/, '//')

const embeddedStores = () => `embedded SQLite stores (WAL) in ${tmpdir()}`
/** The stores a benchmark's server process runs on: PostgreSQL where DATABASE_URL names it, else the embedded ones. */
const serverStores = () =>
  process.env.DATABASE_URL ? `PostgreSQL stores (${withoutCredentials(process.env.DATABASE_URL)})` : embeddedStores()

/** The machine and stores; with `server`, how the benchmark's server process is started. */
export const conditions = (server = false, stores = server ? serverStores() : embeddedStores()) =>
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ${stores}` +
  (server ? `, server started as \`npm start\` does (node ${serverNodeArgs.join(' ')}, ${shiplogRuns()})` : '')

/** What bin/shiplog.js runs for the benchmark's server and rebuilds: dist/, or the sources through tsx. */
export const shiplogRuns = () => (runsCompiled('.') ? 'compiled dist/' : 'TypeScript sources through tsx')

export const ms = (n: number) => `${n.toFixed(1)} ms`

/** An instruction count as millions per 1000 items, as the instruction benchmarks print it. */
export const millionsPer1000 = (instructions: number, items: number) =>
  (((instructions / items) * 1000) / 1e6).toFixed(1).padStart(6)

/** An append's events as rows of the event store's table, without their positions: what the raw baselines insert. */
export const eventRows = (appends: readonly AppendRequest[]) =>
  appends.flatMap((a) =>
    a.events.map((e, revision) => [
      e.id,
      a.stream,
      revision,
      e.type,
      JSON.stringify(e.data),
      JSON.stringify(e.metadata),
      e.metadata.recordedAt,
    ]),
  )

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/**
 * A full collection now, before a timed phase of this process: the garbage of
 * what it did before (deciding every batch beforehand, say) would otherwise be
 * collected on the phase's time.
 */
export const collectGarbage = () => gc()

/**
 * The server as users run it: `shiplog serve` in a process of its own, so the
 * benchmark's client does not share its event loop.
 */
export async function benchServerProcess(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-bench-'))
  const childEnv = await processEnvironment(dataDir, 'bench', env)
  const account = createAccountWithCli(childEnv, 'Bench')
  const { url, child } = await spawnServer(childEnv, { nodeArgs: serverNodeArgs, stdio: 'inherit' })
  return {
    url,
    pid: child.pid,
    dataDir,
    key: account.private_key,
    accountId: account.id,
    /** The server's resident memory now and at its peak, in MB, as the kernel counts them (Linux). */
    memoryMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
      return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
    },
    cpuMeter: () => cpuMeter(child.pid!),
    async close() {
      child.kill('SIGTERM')
      await once(child, 'exit')
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Starts reading where a server's writes spend their time, from its /metrics
 * (`shiplog_write_seconds`): `since()` then gives the mean of each stage over
 * the writes made meanwhile, stored (decision to events stored) and visible
 * (then waiting for the read models).
 */
export async function writeStages(server: { url: string }) {
  const read = () =>
    Promise.all(
      STAGES.map(async (stage) => ({
        sum: await metric(server, 'shiplog_write_seconds_sum', { stage }),
        count: await metric(server, 'shiplog_write_seconds_count', { stage }),
      })),
    )
  const before = await read()
  return {
    async since() {
      const means = (await read()).map(({ sum, count }, i) => {
        const writes = count - before[i]!.count
        return `${STAGES[i]} ${writes > 0 ? ms(((sum - before[i]!.sum) / writes) * 1000) : 'none'}`
      })
      return `a write's time on the server: ${means.join(', then ')} (means)`
    },
  }
}
const STAGES = ['stored', 'visible'] as const

/** The CPU seconds a process or thread (its /proc folder) has spent: fields 14 and 15 of its stat, in ticks of 10 ms. */
export function cpuSeconds(proc: string) {
  const fields = readFileSync(`${proc}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * Starts counting a process's CPU time, all its threads (Linux: each thread's
 * stat under /proc/<pid>/task); `per(units, unit)` then tells the time spent
 * since, per unit of work: in all, on the main thread (HTTP, commands, jobs),
 * and on each other thread busiest first (the projector, V8's GC helpers, ...).
 * Steadier than a rate on a shared machine.
 */
export function cpuMeter(pid: number, label = 'server CPU') {
  const threads = () =>
    new Map(
      readdirSync(`/proc/${pid}/task`).map((tid) => [Number(tid), cpuSeconds(`/proc/${pid}/task/${tid}`)] as const),
    )
  const before = threads()
  return {
    per(units: number, unit: string, scale: 'ms' | 'µs' = 'ms') {
      const factor = scale === 'ms' ? 1000 : 1_000_000
      const spent = [...threads()].map(([tid, s]) => ({ tid, t: ((s - (before.get(tid) ?? 0)) * factor) / units }))
      const total = spent.reduce((sum, t) => sum + t.t, 0)
      const main = spent.find((t) => t.tid === pid)?.t ?? NaN
      const others = spent
        .filter((t) => t.tid !== pid && t.t >= 1)
        .sort((a, b) => b.t - a.t)
        .map((t) => t.t.toFixed(0))
      return `${label} ${total.toFixed(scale === 'ms' ? 1 : 0)} ${scale} per ${unit} (main thread ${main.toFixed(0)}, others ${others.join(', ')})`
    },
  }
}

export type BenchServerProcess = Awaited<ReturnType<typeof benchServerProcess>>

/**
 * Posts the JSON bodies to `path` from `concurrency` clients, each waiting for
 * its answer before the next; gives each batch's latency, the run's seconds and
 * the highest X-Shiplog-Position answered.
 */
export async function postBatches(
  server: { url: string; key: string },
  path: string,
  bodies: readonly string[],
  concurrency: number,
  /** The status every answer must have: 201 for creations, 200 for updates. */
  expected = 201,
) {
  const latencies: number[] = []
  let lastPosition = 0n
  let next = 0
  // One keep-alive connection a client, as store platforms and SDKs hold them; node:http costs the client less than fetch.
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const target = new URL(path, server.url)
  const post = (body: string) =>
    new Promise<{ status: number; position: string | undefined }>((resolve, reject) => {
      const request = http.request(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            authorization: server.key,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          response.resume()
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              position: response.headers['x-shiplog-position'] as string | undefined,
            }),
          )
        },
      )
      request.on('error', reject)
      request.end(body)
    })
  const started = performance.now()
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!
          const t0 = performance.now()
          const response = await post(body)
          if (response.status !== expected) throw new Error(`${path}: status ${response.status}, expected ${expected}`)
          latencies.push(performance.now() - t0)
          const position = BigInt(response.position ?? 0)
          if (position > lastPosition) lastPosition = position
        }
      }),
    )
  } finally {
    agent.destroy()
  }
  return { latencies, seconds: (performance.now() - started) / 1000, lastPosition }
}

/**
 * `requests` sequential GETs of `pathOf(n)` after ten that warm the caches;
 * the milliseconds each took until its answer was received in full (parsing
 * it is the client's business). The first answer must be a non-empty list.
 */
export async function timeGets(server: { url: string; key: string }, pathOf: (n: number) => string, requests: number) {
  const latencies: number[] = []
  for (let n = 0; n < requests + 10; n++) {
    const t = performance.now()
    const response = await fetch(`${server.url}${pathOf(n)}`, { headers: { authorization: server.key } })
    const body = await response.arrayBuffer()
    if (n === 0) {
      const page = JSON.parse(Buffer.from(body).toString()) as { data?: unknown[] }
      if (response.status !== 200 || !page.data?.length)
        throw new Error(`${pathOf(n)}: ${response.status}, ${page.data?.length} items`)
    }
    if (n >= 10) latencies.push(performance.now() - t)
  }
  return latencies
}

/** Polls `path` until `done` holds of its JSON body; the milliseconds it took. */
export async function msUntil(server: { url: string; key: string }, path: string, done: (body: any) => boolean) {
  const t0 = performance.now()
  for (;;) {
    const response = await fetch(`${server.url}${path}`, { headers: { authorization: server.key } })
    if (done(await response.json())) return performance.now() - t0
    await new Promise((r) => setTimeout(r, 5))
  }
}

/**
 * Batch `b` of the ingest benchmarks' `POST /v1/trackers` items: two trackers
 * per order, each order a different customer whose phone number the server
 * has not seen before, as a merchant's new orders are.
 */
export const trackerBatch = (b: number, size = 1000) =>
  Array.from({ length: size }, (_, i) => {
    const order = b * size + i - (i % 2)
    return {
      order_number: `B${b}-O${Math.floor(i / 2)}`,
      tracking_number: `1Z${String(b).padStart(4, '0')}${String(i).padStart(6, '0')}`,
      email: `customer${order}@example.com`,
      first_name: 'Jo',
      address_country: 'FR',
      address_city: 'Lyon',
      phone: `06 ${String(order).padStart(8, '0')}`,
      carrier_code: 'ups',
    }
  })

/** A tracker's scans from label to delivery, one a batch of the carrier-event benchmarks. */
export const scanSteps = [
  'label_created',
  'origin_scan',
  'transit',
  'transit',
  'out_for_delivery',
  'delivered',
] as const

/**
 * The carrier-event benchmarks' workload over HTTP: `trackers` trackers (one
 * an order) in 1000-item `POST /v1/trackers` bodies, then `eventBatch(n)`, the
 * `POST /v2/trackers/events` body of the next scan of 1000 of them,
 * round-robin over all of them (batch `trackers / 1000` starts their second
 * scan).
 */
export function scanWorkload(trackers: number, batchSize = 1000) {
  const t0 = 1_795_000_000
  const trackingNumber = (i: number) => `EV${String(i).padStart(8, '0')}`
  return {
    trackerBodies: Array.from({ length: trackers / batchSize }, (_, b) =>
      JSON.stringify({
        trackers: Array.from({ length: batchSize }, (_, i) => ({
          order_number: `EV-O${b * batchSize + i}`,
          tracking_number: trackingNumber(b * batchSize + i),
          carrier_code: 'colissimo',
          email: `c${i}@example.com`,
        })),
      }),
    ),
    eventBatch: (n: number) =>
      JSON.stringify({
        events: Array.from({ length: batchSize }, (_, i) => {
          const k = n * batchSize + i
          const step = Math.floor(k / trackers)
          return {
            tracking_number: trackingNumber(k % trackers),
            event_type_code: scanSteps[step % scanSteps.length],
            happened_at: t0 + step * 3600,
            message: `Scan ${step}`,
            address: { city: 'Lyon', zip: '69001', country_code: 'FR' },
          }
        }),
      }),
  }
}

/** One measured run of `postBatches`: the rate of items, the batch latencies and the server's CPU per batch. */
export async function measureBatches(
  server: BenchServerProcess,
  path: string,
  bodies: readonly string[],
  { concurrency, itemsPerBatch, expected }: { concurrency: number; itemsPerBatch: number; expected?: number },
) {
  const cpu = server.cpuMeter()
  const clientCpu = cpuMeter(process.pid, 'client CPU')
  const { latencies, seconds, lastPosition } = await postBatches(server, path, bodies, concurrency, expected)
  return {
    rate: (bodies.length * itemsPerBatch) / seconds,
    median: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu: cpu.per(bodies.length, 'batch'),
    clientCpu: clientCpu.per(bodies.length, 'batch'),
    lastPosition,
  }
}

export type Replay = Awaited<ReturnType<typeof measureReplay>>

/**
 * Closes a benchmark's stores and runs measureReplay on them in a node process
 * of its own (bench/replay-stores.ts): what the benchmark's process did before
 * (its heap, its threads) weighs on neither the raw read nor the rebuild. The
 * stores' folder is removed after.
 */
export async function replayInOwnProcess(stores: Awaited<ReturnType<typeof benchStores>>): Promise<Replay> {
  await stores.runtime.close()
  try {
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'bench/replay-stores.ts', stores.dataDir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    if (child.status !== 0) throw new Error(`the replay of ${stores.dataDir} failed (exit code ${child.status})`)
    return JSON.parse(child.stdout) as Replay
  } finally {
    rmSync(stores.dataDir, { recursive: true, force: true })
  }
}

/**
 * The raw read of the whole log through the event store port, parsing every
 * event as a projector would, beside the rebuild of the orders projection
 * from it as an operator runs it (`shiplog projections rebuild orders`, in
 * a process of its own and timed by it); both in events per second. Then the
 * orders' full views, which the live projector renders when idle, in its slices.
 */
export async function measureReplay(config: Config) {
  let runtime = await openRuntime(config)
  let t0 = performance.now()
  let read = 0
  for (let after: bigint | undefined; ; ) {
    const page = await runtime.eventStore.readAll({ after, limit: 5000 })
    if (page.length === 0) break
    for (const e of page) if (e.data === undefined) throw new Error('unreadable event')
    read += page.length
    after = page[page.length - 1]!.position
  }
  const raw = read / ((performance.now() - t0) / 1000)
  await runtime.close()
  const rebuild = rebuildAsOperatorsDo(config)
  runtime = await openRuntime(config)
  t0 = performance.now()
  let views = 0
  for (;;) {
    const slice = await ordersProjection.fillViews!(runtime.readStore, 100)
    if (slice === 0) break
    views += slice
  }
  const viewSeconds = (performance.now() - t0) / 1000
  await runtime.close()
  return { events: read, raw, rebuild, views, viewSeconds }
}

/** `shiplog projections rebuild orders` on the config's stores: the events a second it reports. */
function rebuildAsOperatorsDo(config: Config) {
  const child = spawnSync(process.execPath, [...startFlags, 'bin/shiplog.js', 'projections', 'rebuild', 'orders'], {
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: config.DATA_DIR, LOG_LEVEL: 'silent' },
  })
  const rate = /orders: rebuilt from \d+ events in [\d.]+ s \(([\d,]+) events\/s\)/.exec(child.stderr)?.[1]
  if (child.status !== 0 || rate === undefined) throw new Error(`the rebuild failed: ${child.stderr}`)
  return Number(rate.replaceAll(',', ''))
}

/** Waits until every order in the read store of `dataDir` has its full view; gives how many had none at first. */
export async function untilViewsRendered(dataDir: string, pollMs: number) {
  const db = new Database(join(dataDir, 'read.db'), { readonly: true })
  const missing = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM orders WHERE v_${ORDER_FULL_VIEW} IS NULL`)
  const orders = missing.get()!.n
  while (missing.get()!.n > 0) await new Promise((r) => setTimeout(r, pollMs))
  db.close()
  return orders
}

/**
 * Waits until the server's projector has rendered the full view of every
 * order (its idle work, after a burst of writes); gives the orders it had
 * left, the time it took and the server's CPU meanwhile.
 */
export async function viewsRendered(server: BenchServerProcess) {
  if (process.env.DATABASE_URL) return "the full views' filling not timed: the stores are on PostgreSQL"
  const cpu = server.cpuMeter()
  const t0 = performance.now()
  const orders = await untilViewsRendered(server.dataDir, 20)
  const seconds = (performance.now() - t0) / 1000
  return `the full views of ${orders.toLocaleString('en')} orders rendered when idle in ${seconds.toFixed(1)} s (${cpu.per(Math.max(orders, 1) / 1000, '1000 orders')})`
}

/**
 * The appends `POST /v1/trackers` makes for these items, planned by the
 * command API itself (grouping by order, deciding, ids and metadata) on the
 * given stores: what the storage benchmarks write.
 */
export async function decidedAppends(
  runtime: Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids' | 'config'>,
  accountId: number,
  items: readonly TrackerItem[],
): Promise<AppendRequest[]> {
  const request = benchRequest(accountId)
  return (await planTrackerUpserts(runtime, createOrderStates(0), request, items)()).appends
}

/** A request of the benchmark's account with its private key, for the command API's planners. */
export function benchRequest(accountId: number): CommandRequest {
  const account = {
    id: accountId,
    name: 'Bench',
    language_code: 'en',
    created_at: 0,
    updated_at: 0,
    private_key_hash: '',
    public_key_hash: '',
    deleted: false,
  }
  return { source: 'api', account, correlationId: 'bench', keyId: 'bench' }
}

/** How many events a set of appends writes. */
export const eventsOf = (appends: readonly AppendRequest[]) => appends.reduce((sum, a) => sum + a.events.length, 0)

/** Every read model, through the live runner, up to the log's head. */
export async function projectAll(rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config'>) {
  const head = await rt.eventStore.head()
  const controller = new AbortController()
  await runProjections(rt, projections, controller.signal, (position) => {
    if (position >= head) controller.abort()
  })
}
