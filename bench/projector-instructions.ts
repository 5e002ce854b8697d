/**
 * The projector's work counted in machine instructions, which a loaded host
 * does not change: valgrind's callgrind counts what a process executes, not
 * how long it took. Two logs are prepared natively, then projected by the
 * compiled service (`bench/project-log.mjs`, with `npm start`'s node flags)
 * under callgrind:
 *   new trackers: 10 batches of 1000 (two an order), as `POST /v1/trackers`
 *     appends them, projected from nothing;
 *   carrier events: 6,000 trackers (one an order) projected, then each
 *     through its six scans (36 batches of 1000, as `POST /v2/trackers/events`
 *     appends them), projected from there.
 * Each count is less that of the same process on an empty log (start-up and
 * module loading), and is given per 1000 trackers or carrier events; no WAL
 * checkpoint runs, so the count is the projector's own work. Two
 * versions of the code compare by their counts, which repeat within about
 * 0.1 %; how they turn into time depends on the host. Needs valgrind (Debian's
 * package); takes a few minutes.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOrderStates } from '../commands/trackers/upsert.ts'
import { planTrackingEvents, trackingEventsBody } from '../commands/trackers/events.ts'
import { projections } from '../projectors/projections.ts'
import { runProjections } from '../projectors/runner.ts'
import { loadConfig } from '../shared/infra/config.ts'
import { openRuntime, type Runtime } from '../shared/infra/runtime.ts'
import { benchRequest, conditions, decidedAppends, serverNodeArgs, trackerBatch } from './support.ts'

const NEW_BATCHES = 10
const SCANNED_TRACKERS = 6000
const BATCH_SIZE = 1000
const T0 = 1_795_000_000
const steps = ['label_created', 'origin_scan', 'transit', 'transit', 'out_for_delivery', 'delivered'] as const
const ACCOUNT = 1

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.log('projector-instructions: skipped, valgrind is not installed (apt-get install valgrind)')
  process.exit(0)
}

const folders: string[] = []
async function storesIn(prepare: (rt: Runtime) => Promise<void>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-instructions-'))
  folders.push(dataDir)
  const runtime = await openRuntime(loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }))
  await prepare(runtime)
  await runtime.close()
  return dataDir
}

/** Every read model, through the live runner, up to the log's head. */
async function projectAll(rt: Runtime) {
  const head = await rt.eventStore.head()
  const controller = new AbortController()
  await runProjections(rt, projections, controller.signal, (position) => {
    if (position >= head) controller.abort()
  })
}

const empty = await storesIn(async () => {})
const newTrackers = await storesIn(async (rt) => {
  for (let b = 0; b < NEW_BATCHES; b++) await rt.eventStore.append(await decidedAppends(rt, ACCOUNT, trackerBatch(b)))
})
const carrierEvents = await storesIn(async (rt) => {
  const numbers: string[] = []
  for (let b = 0; b < SCANNED_TRACKERS / BATCH_SIZE; b++) {
    const items = trackerBatch(b).map((t, i) => ({ ...t, order_number: `${t.order_number}-${i}` }))
    numbers.push(...items.map((t) => t.tracking_number))
    await rt.eventStore.append(await decidedAppends(rt, ACCOUNT, items))
  }
  await projectAll(rt)
  const orders = createOrderStates(rt.config.ORDER_CACHE_SIZE)
  const request = benchRequest(ACCOUNT)
  for (let n = 0; n < (steps.length * SCANNED_TRACKERS) / BATCH_SIZE; n++) {
    const events = trackingEventsBody.parse({
      events: Array.from({ length: BATCH_SIZE }, (_, i) => {
        const k = n * BATCH_SIZE + i
        const step = Math.floor(k / SCANNED_TRACKERS)
        return {
          tracking_number: numbers[k % SCANNED_TRACKERS]!,
          event_type_code: steps[step],
          happened_at: T0 + step * 3600,
          message: `Scan ${step}`,
          address: { city: 'Lyon', zip: '69001', country_code: 'FR' },
        }
      }),
    }).events
    await rt.eventStore.append((await planTrackingEvents(rt, orders, request, events)()).appends)
  }
})

/** Instructions the projection of DATA_DIR's log executes, with the events it projected. */
function instructions(dataDir: string) {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      ...serverNodeArgs,
      'bench/project-log.mjs',
    ],
    { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, encoding: 'utf8' },
  )
  const count = /Collected : (\d+)/.exec(run.stderr)?.[1]
  const projected = /projected (\d+)/.exec(run.stdout)?.[1]
  if (run.status !== 0 || !count || !projected) throw new Error(`callgrind run failed: ${run.stderr.slice(-2000)}`)
  return { count: Number(count), events: Number(projected) }
}

console.log(
  `projector-instructions: the compiled projector under callgrind on ${(NEW_BATCHES * BATCH_SIZE).toLocaleString('en')} new trackers and on ${(steps.length * SCANNED_TRACKERS).toLocaleString('en')} carrier events (${SCANNED_TRACKERS.toLocaleString('en')} trackers, six scans each), node ${serverNodeArgs.join(' ')}; ${conditions()}`,
)
const startUp = instructions(empty).count
const per1000 = (dataDir: string, items: number, label: string) => {
  const { count, events } = instructions(dataDir)
  console.log(
    `${label.padEnd(16)} ${((((count - startUp) / items) * 1000) / 1e6).toFixed(1).padStart(6)} million instructions per 1000 (${events.toLocaleString('en')} events projected; start-up ${(startUp / 1e6).toFixed(0)} million, left out)`,
  )
}
per1000(newTrackers, NEW_BATCHES * BATCH_SIZE, 'new trackers')
per1000(carrierEvents, steps.length * SCANNED_TRACKERS, 'carrier events')
for (const folder of folders) rmSync(folder, { recursive: true, force: true })
