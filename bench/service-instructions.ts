/**
 * The whole service's work counted in machine instructions, which a loaded
 * host barely moves: the compiled server, started with `npm start`'s node
 * flags (and V8's optimising compiler on the threads it compiles for, as
 * `projector-instructions` runs it) under valgrind's callgrind, answers real
 * HTTP requests: batches from 2 clients, as `compare` and `tracking-events`
 * send them, and single orders as `orders-single` does. Every thread counts: the
 * request thread, the projector, the WAL checkpointer, the reactions and the
 * garbage collections of each.
 *   new trackers: 12 warm-up batches of 1000 (two an order), then 6 counted;
 *   carrier events: 6,000 trackers (one an order) and their first scans as
 *     the warm-up, then their five later scans counted (30 batches of 1000);
 *   one order a request: `orders-single`'s orders from its ORDER_CLIENTS
 *     clients, 2,000 to warm up, then 1,000 counted.
 * The counter is zeroed once the warm-up is projected, its orders' views
 * rendered and the server idle, and read at the same point after the counted
 * batches: their views, which the service renders when idle, are part of
 * the count. Valgrind runs one thread at a time, so a commit gathers what
 * arrived meanwhile as it does on a loaded core, not as on two. Needs
 * valgrind (Debian's package); takes about half an hour.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccountWithCli, processEnvironment } from '../tests/support/process.ts'
import { ORDER_CLIENTS, orderRequest } from './fixtures.ts'
import {
  conditions,
  cpuSeconds,
  millionsPer1000,
  postBatches,
  scanSteps,
  scanWorkload,
  serverNodeArgs,
  trackerBatch,
  untilViewsRendered,
} from './support.ts'

const BATCH_SIZE = 1000
const NEW_WARMUP = 12
const NEW_COUNTED = 6
const SCANNED_TRACKERS = 6000
const CONCURRENCY = 2
const ORDERS_WARMUP = 2000
const ORDERS_COUNTED = 1000

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.log('service-instructions: skipped, valgrind is not installed (apt-get install valgrind)')
  process.exit(0)
}

/** BENCH_KEEP_COUNTS: a folder to keep callgrind's dump of each part's counted batches in, for callgrind_annotate. */
const keepCounts = process.env.BENCH_KEEP_COUNTS
if (keepCounts) mkdirSync(keepCounts, { recursive: true })

/** The server under callgrind, counting from its start until `zero()`, then until `read()`. */
async function countedServer() {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-service-instructions-'))
  // Followers of the log are woken by each append in this process; their polls
  // of an idle log, a few instructions natively, were about a third of an
  // idle server's count under callgrind.
  const env = await processEnvironment(dataDir, 'bench', { POLL_INTERVAL_MS: '5000' })
  const account = createAccountWithCli(env, 'Bench')
  const child: ChildProcess = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${join(dataDir, 'callgrind.out')}`,
      process.execPath,
      ...serverNodeArgs,
      // As projector-instructions counts: optimised code arrives at the same points every run.
      '--no-concurrent-recompilation',
      'bin/shiplog.js',
      'serve',
    ],
    { env, stdio: 'ignore' },
  )
  process.once('exit', () => child.kill('SIGKILL'))
  const url = `http://127.0.0.1:${env.PORT}`
  for (let i = 0; ; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    if (i > 1200 || child.exitCode !== null) throw new Error('the server did not start under valgrind')
    await new Promise((r) => setTimeout(r, 250))
  }
  const control = (flag: string) => {
    // The server's environment: valgrind names its control pipes after $HOST, which the server's own HOST sets.
    const run = spawnSync('callgrind_control', [flag, String(child.pid)], { env, encoding: 'utf8' })
    if (run.status !== 0) throw new Error(`callgrind_control ${flag}: ${run.stderr}`)
  }
  /**
   * Until its orders' views are rendered and it is idle: under a quarter of a
   * core for 2 s. Idle under callgrind is not nothing: its timers and V8's
   * optimising compiler take about a tenth of a core there.
   */
  const settled = async () => {
    await untilViewsRendered(dataDir, 200)
    for (let before = cpuSeconds(`/proc/${child.pid}`); ; ) {
      await new Promise((r) => setTimeout(r, 2000))
      const now = cpuSeconds(`/proc/${child.pid}`)
      if (now - before < 0.5) break
      before = now
    }
  }
  return {
    server: { url, key: account.private_key },
    settled,
    zero: () => control('--zero'),
    /** Instructions since the zero, from the dump callgrind writes (in its own time: the command only asks). */
    async read(name: string) {
      control('--dump')
      for (let i = 0; i < 1200; i++) {
        const dump = readdirSync(dataDir).find((f) => f.startsWith('callgrind.out.'))
        const summary = dump && /^summary: (\d+)/m.exec(readFileSync(join(dataDir, dump), 'utf8'))?.[1]
        if (summary && keepCounts) cpSync(join(dataDir, dump), join(keepCounts, `callgrind.${name}.out`))
        if (summary) return Number(summary)
        await new Promise((r) => setTimeout(r, 250))
      }
      throw new Error('callgrind wrote no dump')
    },
    async close() {
      child.kill('SIGKILL')
      if (child.exitCode === null) await once(child, 'exit')
      rmSync(dataDir, { recursive: true, force: true })
      // The control pipes valgrind leaves behind when killed.
      for (const pipe of readdirSync(tmpdir()).filter(
        (f) => f.startsWith('vgdb-pipe-') && f.includes(`-${child.pid}-`),
      ))
        rmSync(join(tmpdir(), pipe), { force: true })
    },
  }
}

/** Requests to one route: their JSON bodies, from `clients` at once (CONCURRENCY unless said). */
type Posts = { path: string; bodies: string[]; clients?: number }

/**
 * Million instructions per 1000 items of the `counted` requests, each of
 * `itemsEach` items, on a server that has taken the `warmUp` ones first, as printed.
 */
async function perThousandItems(name: string, warmUp: Posts[], counted: Posts, itemsEach = BATCH_SIZE) {
  const server = await countedServer()
  const post = ({ path, bodies, clients = CONCURRENCY }: Posts) => postBatches(server.server, path, bodies, clients)
  for (const posts of warmUp) await post(posts)
  await server.settled()
  server.zero()
  await post(counted)
  await server.settled()
  const instructions = await server.read(name)
  await server.close()
  return millionsPer1000(instructions, counted.bodies.length * itemsEach)
}

const batches = (from: number, count: number, body: (n: number) => string) =>
  Array.from({ length: count }, (_, n) => body(from + n))

console.log(
  `service-instructions: the compiled server under callgrind, every thread counted, ${CONCURRENCY} clients over HTTP (${ORDER_CLIENTS} for one order a request), the counted batches' views included, V8's optimising compiler on the threads it compiles for (--no-concurrent-recompilation); ${conditions(true)}`,
)

const parts = process.env.BENCH_PARTS?.split(',') ?? ['new', 'carrier', 'orders']

if (parts.includes('new')) {
  const body = (b: number) => JSON.stringify({ trackers: trackerBatch(b) })
  const millions = await perThousandItems(
    'new-trackers',
    [{ path: '/v1/trackers', bodies: batches(0, NEW_WARMUP, body) }],
    {
      path: '/v1/trackers',
      bodies: batches(NEW_WARMUP, NEW_COUNTED, body),
    },
  )
  console.log(
    `new trackers     ${millions} million instructions per 1000 (${(NEW_COUNTED * BATCH_SIZE).toLocaleString('en')} counted after ${(NEW_WARMUP * BATCH_SIZE).toLocaleString('en')})`,
  )
}

if (parts.includes('carrier')) {
  const { trackerBodies, eventBatch } = scanWorkload(SCANNED_TRACKERS, BATCH_SIZE)
  const firstScans = SCANNED_TRACKERS / BATCH_SIZE
  const laterScans = ((scanSteps.length - 1) * SCANNED_TRACKERS) / BATCH_SIZE
  const millions = await perThousandItems(
    'carrier-events',
    [
      { path: '/v1/trackers', bodies: trackerBodies },
      { path: '/v2/trackers/events', bodies: batches(0, firstScans, eventBatch) },
    ],
    { path: '/v2/trackers/events', bodies: batches(firstScans, laterScans, eventBatch) },
  )
  console.log(
    `carrier events   ${millions} million instructions per 1000 (${(laterScans * BATCH_SIZE).toLocaleString('en')} counted: the later five scans of ${SCANNED_TRACKERS.toLocaleString('en')} trackers)`,
  )
}

if (parts.includes('orders')) {
  const orders = (from: number, count: number) => ({
    path: '/v2/orders',
    bodies: batches(from, count, orderRequest),
    clients: ORDER_CLIENTS,
  })
  const millions = await perThousandItems(
    'orders',
    [orders(0, ORDERS_WARMUP)],
    orders(ORDERS_WARMUP, ORDERS_COUNTED),
    1,
  )
  console.log(
    `one order a request ${millions} million instructions per 1000 (${ORDERS_COUNTED.toLocaleString('en')} counted after ${ORDERS_WARMUP.toLocaleString('en')}, ${ORDER_CLIENTS} clients)`,
  )
}
