/**
 * The whole service's work counted in machine instructions, which a loaded
 * host barely moves: the compiled server, started with `npm start`'s node
 * flags under valgrind's callgrind, answers real HTTP batches from 2 clients,
 * as `compare` and `tracking-events` send them. Every thread counts: the
 * request thread, the projector, the WAL checkpointer, the reactions and the
 * garbage collections of each.
 *   new trackers: 3 warm-up batches of 1000 (two an order), then 6 counted;
 *   carrier events: 6,000 trackers (one an order) and their first scans as
 *     the warm-up, then their five later scans counted (30 batches of 1000).
 * The counter is zeroed once the warm-up is projected, its orders' views
 * rendered and the server idle, and read at the same point after the counted
 * batches: their views, which the service renders when idle, are part of
 * the count. Needs valgrind (Debian's package); takes about ten minutes.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccountWithCli, processEnvironment } from '../tests/support/process.ts'
import {
  conditions,
  cpuSeconds,
  postBatches,
  scanSteps,
  scanWorkload,
  serverNodeArgs,
  trackerBatch,
  untilViewsRendered,
} from './support.ts'

const BATCH_SIZE = 1000
const NEW_WARMUP = 3
const NEW_COUNTED = 6
const SCANNED_TRACKERS = 6000
const CONCURRENCY = 2

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.log('service-instructions: skipped, valgrind is not installed (apt-get install valgrind)')
  process.exit(0)
}

/** The server under callgrind, counting from its start until `zero()`, then until `read()`. */
async function countedServer() {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-service-instructions-'))
  // Followers of the log are woken by each append in this process; their polls
  // of an idle log, a few instructions natively, were a third of an idle
  // server's count under callgrind.
  const env = await processEnvironment(dataDir, 'bench', { POLL_INTERVAL_MS: '5000' })
  const account = createAccountWithCli(env, 'Bench')
  const child: ChildProcess = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${join(dataDir, 'callgrind.out')}`,
      process.execPath,
      ...serverNodeArgs,
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
  /** Until its orders' views are rendered and its threads are idle (under a twentieth of a core for 2 s). */
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
    async read() {
      control('--dump')
      for (let i = 0; i < 1200; i++) {
        const dump = readdirSync(dataDir).find((f) => f.startsWith('callgrind.out.'))
        const summary = dump && /^summary: (\d+)/m.exec(readFileSync(join(dataDir, dump), 'utf8'))?.[1]
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

const perThousand = (instructions: number, items: number) => ((instructions / items) * 1000) / 1e6

console.log(
  `service-instructions: the compiled server under callgrind, every thread counted, ${CONCURRENCY} clients over HTTP, the counted batches' views included; ${conditions(true)}`,
)

const parts = process.env.BENCH_PARTS?.split(',') ?? ['new', 'carrier']

if (parts.includes('new')) {
  const counted = await countedServer()
  const body = (b: number) => JSON.stringify({ trackers: trackerBatch(b) })
  await postBatches(
    counted.server,
    '/v1/trackers',
    Array.from({ length: NEW_WARMUP }, (_, b) => body(b)),
    CONCURRENCY,
  )
  await counted.settled()
  counted.zero()
  const bodies = Array.from({ length: NEW_COUNTED }, (_, b) => body(NEW_WARMUP + b))
  await postBatches(counted.server, '/v1/trackers', bodies, CONCURRENCY)
  await counted.settled()
  const items = NEW_COUNTED * BATCH_SIZE
  console.log(
    `new trackers     ${perThousand(await counted.read(), items)
      .toFixed(1)
      .padStart(
        6,
      )} million instructions per 1000 (${items.toLocaleString('en')} counted after ${(NEW_WARMUP * BATCH_SIZE).toLocaleString('en')})`,
  )
  await counted.close()
}

if (parts.includes('carrier')) {
  const counted = await countedServer()
  const { trackerBodies, eventBatch } = scanWorkload(SCANNED_TRACKERS, BATCH_SIZE)
  const firstScans = SCANNED_TRACKERS / BATCH_SIZE
  const allScans = (scanSteps.length * SCANNED_TRACKERS) / BATCH_SIZE
  await postBatches(counted.server, '/v1/trackers', trackerBodies, CONCURRENCY)
  const warmUp = Array.from({ length: firstScans }, (_, n) => eventBatch(n))
  await postBatches(counted.server, '/v2/trackers/events', warmUp, CONCURRENCY)
  await counted.settled()
  counted.zero()
  const bodies = Array.from({ length: allScans - firstScans }, (_, n) => eventBatch(firstScans + n))
  await postBatches(counted.server, '/v2/trackers/events', bodies, CONCURRENCY)
  await counted.settled()
  const items = bodies.length * BATCH_SIZE
  console.log(
    `carrier events   ${perThousand(await counted.read(), items)
      .toFixed(1)
      .padStart(
        6,
      )} million instructions per 1000 (${items.toLocaleString('en')} counted: the later five scans of ${SCANNED_TRACKERS.toLocaleString('en')} trackers)`,
  )
  await counted.close()
}
