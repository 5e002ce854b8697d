/**
 * The projector's work counted in machine instructions, which a loaded host
 * does not change: valgrind's callgrind counts what a process executes, not
 * how long it took. Two logs are prepared natively, then projected by the
 * compiled service (`bench/project-log.mjs`, with `npm start`'s node flags,
 * V8's optimising compiler on the projecting thread) under callgrind:
 *   new trackers: 24 batches of 1000 (two an order), as `POST /v1/trackers`
 *     appends them, projected from nothing;
 *   carrier events: 6,000 trackers (one an order) projected, then each
 *     through its six scans (36 batches of 1000, as `POST /v2/trackers/events`
 *     appends them), projected from there.
 * Each log is projected twice from the same copy: up to the end of its first
 * batches (a warm-up: start-up, module loading, the code's first runs and
 * its optimisation), then to its end; the difference is the work of the
 * batches after the warm-up, given per 1000 trackers or carrier events, in
 * all and by where it goes (SQLite, LZ4, JSON, garbage collection, the
 * service's compiled code…). No WAL checkpoint runs, so the count is the
 * projector's own work. Two versions of the code compare by their counts,
 * which repeat within about 1 %; how they turn into time depends on the
 * host. Needs valgrind (Debian's package); takes about ten minutes.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOrderStates } from '../commands/trackers/upsert.ts'
import { planTrackingEvents, trackingEventsBody } from '../commands/trackers/events.ts'
import { loadConfig } from '../shared/infra/config.ts'
import { openRuntime, type Runtime } from '../shared/infra/runtime.ts'
import {
  benchRequest,
  conditions,
  decidedAppends,
  millionsPer1000,
  projectAll,
  scanSteps,
  serverNodeArgs,
  trackerBatch,
} from './support.ts'

const NEW_BATCHES = 24
/**
 * Batches of each log projected before the counted ones. New trackers: V8
 * goes on optimising the projector's functions through the first dozen.
 * Carrier events: each scan of the six brings code paths of its own, so the
 * count spans them all.
 */
const NEW_WARMUP_BATCHES = 12
const CARRIER_WARMUP_BATCHES = 2
const SCANNED_TRACKERS = 6000
const BATCH_SIZE = 1000
const T0 = 1_795_000_000
const ACCOUNT = 1

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.log('projector-instructions: skipped, valgrind is not installed (apt-get install valgrind)')
  process.exit(0)
}

const folders: string[] = []
const tempFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'shiplog-instructions-'))
  folders.push(folder)
  return folder
}
/** A log prepared natively, with the position where its warm-up batches end. */
async function storesIn(prepare: (rt: Runtime) => Promise<bigint>) {
  const dataDir = tempFolder()
  const runtime = await openRuntime(loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }))
  const warmedUp = await prepare(runtime)
  /** Where its projection starts: what the preparation projected. */
  const from = (await runtime.readStore.checkpoint('orders')) ?? 0n
  await runtime.close()
  return { dataDir, warmedUp, from }
}

/** BENCH_PARTS: which logs to count, `new` (new trackers) and `carrier` (carrier events). */
const countedParts = process.env.BENCH_PARTS?.split(',') ?? ['new', 'carrier']
for (const part of countedParts)
  if (part !== 'new' && part !== 'carrier') throw new Error(`BENCH_PARTS: no part is named ${part}`)

const newTrackers = async () =>
  storesIn(async (rt) => {
    let warmedUp = 0n
    for (let b = 0; b < NEW_BATCHES; b++) {
      await rt.eventStore.append(await decidedAppends(rt, ACCOUNT, trackerBatch(b)))
      if (b === NEW_WARMUP_BATCHES - 1) warmedUp = await rt.eventStore.head()
    }
    return warmedUp
  })
const carrierEvents = async () =>
  storesIn(async (rt) => {
    const numbers: string[] = []
    for (let b = 0; b < SCANNED_TRACKERS / BATCH_SIZE; b++) {
      const items = trackerBatch(b).map((t, i) => ({ ...t, order_number: `${t.order_number}-${i}` }))
      numbers.push(...items.map((t) => t.tracking_number))
      await rt.eventStore.append(await decidedAppends(rt, ACCOUNT, items))
    }
    await projectAll(rt)
    const orders = createOrderStates(rt.config.ORDER_CACHE_SIZE, rt.config.ORDER_CACHE_MB)
    const request = benchRequest(ACCOUNT)
    let warmedUp = 0n
    for (let n = 0; n < (scanSteps.length * SCANNED_TRACKERS) / BATCH_SIZE; n++) {
      const events = trackingEventsBody.parse({
        events: Array.from({ length: BATCH_SIZE }, (_, i) => {
          const k = n * BATCH_SIZE + i
          const step = Math.floor(k / SCANNED_TRACKERS)
          return {
            tracking_number: numbers[k % SCANNED_TRACKERS]!,
            event_type_code: scanSteps[step],
            happened_at: T0 + step * 3600,
            message: `Scan ${step}`,
            address: { city: 'Lyon', zip: '69001', country_code: 'FR' },
          }
        }),
      }).events
      await rt.eventStore.append((await planTrackingEvents(rt, orders, request, events)()).appends)
      if (n === CARRIER_WARMUP_BATCHES - 1) warmedUp = await rt.eventStore.head()
    }
    return warmedUp
  })

/** BENCH_LEAVE_OUT: read models the projector does not run (`orders`, say): what one costs is the difference. */
const leaveOut = process.env.BENCH_LEAVE_OUT ?? ''
/** BENCH_KEEP_COUNTS: a folder to keep callgrind's outputs in, for callgrind_annotate or KCachegrind. */
const keepCounts = process.env.BENCH_KEEP_COUNTS
if (keepCounts) mkdirSync(keepCounts, { recursive: true })

/**
 * `npm start`'s flags, with V8's optimising compiler on the projecting thread
 * itself. Compiled on its own thread, a function's optimised code arrives
 * whenever valgrind, which runs one thread at a time, lets that thread run:
 * a run would count some batches in slower code than another, and its count
 * would follow valgrind's scheduling as much as the code. Compiled in place,
 * the same code is counted the same but for garbage collection, whose
 * schedule follows the time.
 */
const countedNodeArgs = [...serverNodeArgs, '--no-concurrent-recompilation']

/** Instructions a projection of a copy of the log executes, up to `until` (the head when undefined), with the position it reached. */
function instructions(dataDir: string, name: string, until?: bigint) {
  const copy = tempFolder()
  cpSync(dataDir, copy, { recursive: true })
  const counts = join(tempFolder(), 'callgrind.out')
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${counts}`,
      process.execPath,
      ...countedNodeArgs,
      'bench/project-log.mjs',
    ],
    {
      env: {
        ...process.env,
        DATA_DIR: copy,
        LOG_LEVEL: 'silent',
        LEAVE_OUT: leaveOut,
        ...(until ? { UNTIL: String(until) } : {}),
      },
      encoding: 'utf8',
    },
  )
  rmSync(copy, { recursive: true, force: true })
  const count = /Collected : (\d+)/.exec(run.stderr)?.[1]
  const reached = /reached (\d+)/.exec(run.stdout)?.[1]
  if (run.status !== 0 || !count || !reached) throw new Error(`callgrind run failed: ${run.stderr.slice(-2000)}`)
  const byPart = countsByPart(counts)
  if (keepCounts) cpSync(counts, join(keepCounts, `callgrind.${name}.out`))
  return { count: Number(count), reached: BigInt(reached), byPart }
}

/**
 * Where instructions go, by the library or part of V8 that executes them
 * (the symbol and object file callgrind names). JSON is V8's own
 * JSON.parse and JSON.stringify; compiled JavaScript is the service's code
 * and its libraries' once V8 has compiled them.
 */
const parts: [name: string, test: RegExp][] = [
  ['SQLite', /better_sqlite3\.node/],
  ['LZ4', /lz4-napi/],
  ['JSON.stringify', /JsonStringifier|Dtoa|IntToCString|DoubleToCString/],
  ['JSON.parse', /JsonParser|StringToDouble|Strtod/],
  ['garbage collection', /Scavenge|MarkCompact|Marking|Sweep|Evacuat|::Heap::|heap::base/],
  ['V8 compiler', /compiler::|Compiler|Baseline|maglev/i],
  ['V8 builtins', /Builtins_/],
  ['compiled JavaScript', /^\?\?\?:0x/],
  ['libc (memory copies and zeroing)', /libc\.so/],
]
const OTHER = 'the rest of node and V8'

/** A callgrind output's instructions by part (callgrind_annotate's list of functions, each counted where it runs). */
function countsByPart(file: string) {
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
  const byPart = new Map<string, number>()
  for (const line of annotated.stdout.split('\n')) {
    const row = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.+)$/.exec(line)
    if (!row || row[2]!.startsWith('PROGRAM TOTALS')) continue
    const part = parts.find(([, test]) => test.test(row[2]!))?.[0] ?? OTHER
    byPart.set(part, (byPart.get(part) ?? 0) + Number(row[1]!.replaceAll(',', '')))
  }
  return byPart
}

console.log(
  `projector-instructions: the compiled projector under callgrind on ${(NEW_BATCHES * BATCH_SIZE).toLocaleString('en')} new trackers and on ${(scanSteps.length * SCANNED_TRACKERS).toLocaleString('en')} carrier events (${SCANNED_TRACKERS.toLocaleString('en')} trackers, six scans each), counted after the first ${NEW_WARMUP_BATCHES} and ${CARRIER_WARMUP_BATCHES} batches${leaveOut ? `, read models left out: ${leaveOut}` : ''}, node ${countedNodeArgs.join(' ')}; ${conditions()}`,
)
const per1000 = (log: { dataDir: string; warmedUp: bigint; from: bigint }, items: number, label: string) => {
  const name = label.replaceAll(' ', '-')
  const warmUp = instructions(log.dataDir, `${name}.warm-up`, log.warmedUp)
  const all = instructions(log.dataDir, `${name}.all`)
  // The warm-up ends with a projector batch, near the end of its last input batch: the items counted are the share of the events.
  const counted = Math.round((items * Number(all.reached - warmUp.reached)) / Number(all.reached - log.from))
  console.log(
    `${label.padEnd(16)} ${millionsPer1000(all.count - warmUp.count, counted)} million instructions per 1000 (${counted.toLocaleString('en')} counted: events ${(warmUp.reached + 1n).toLocaleString('en')}-${all.reached.toLocaleString('en')} of the log), of which:`,
  )
  for (const name of [...parts.map(([n]) => n), OTHER])
    console.log(
      `  ${name.padEnd(34)} ${millionsPer1000((all.byPart.get(name) ?? 0) - (warmUp.byPart.get(name) ?? 0), counted)}`,
    )
}
if (countedParts.includes('new')) per1000(await newTrackers(), NEW_BATCHES * BATCH_SIZE, 'new trackers')
if (countedParts.includes('carrier'))
  per1000(await carrierEvents(), scanSteps.length * SCANNED_TRACKERS, 'carrier events')
for (const folder of folders) rmSync(folder, { recursive: true, force: true })
