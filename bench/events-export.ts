/**
 * `shiplog events export --format parquet` on logs of two sizes, each made
 * of 1000-tracker batches appended through the event store port: the
 * export's rate and its peak resident memory (VmHWM of the CLI process),
 * which must not grow with the log.
 */
import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { benchStores, conditions, decidedAppends, eventsOf, trackerBatch } from './support.ts'

const SIZES = (process.env.BENCH_EVENTS ?? '200000,2000000').split(',').map(Number)

/** Runs the export as an operator would, sampling its resident memory until it exits; its peak in MB. */
async function exportPeak(dataDir: string, output: string) {
  const child = spawn(
    process.execPath,
    ['bin/shiplog.js', 'events', 'export', '--format', 'parquet', '--output', output],
    {
      env: { ...process.env, DATA_DIR: dataDir },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  let peak = 0
  const sample = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      peak = Math.max(peak, Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024)
    } catch {
      // gone
    }
  }, 20)
  const t0 = performance.now()
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearInterval(sample)
  if (code !== 0) throw new Error(`export exited ${code}`)
  return { peak, seconds: (performance.now() - t0) / 1000 }
}

console.log(`events-export: parquet exports of logs of ${SIZES.join(' and ')} events; ${conditions()}`)
for (const size of SIZES) {
  const stores = await benchStores()
  let events = 0
  for (let b = 0; events < size; b++) {
    const appends = await decidedAppends(stores.runtime, stores.accountId, trackerBatch(b))
    await stores.runtime.eventStore.append(appends)
    events += eventsOf(appends)
  }
  const output = join(stores.dataDir, 'events.parquet')
  const { peak, seconds } = await exportPeak(stores.dataDir, output)
  console.log(
    `${events.toLocaleString('en').padStart(10)} events: ${Math.round(events / seconds).toLocaleString('en')} events/s, file ${(statSync(output).size / 1024 / 1024).toFixed(0)} MB, peak RSS ${peak.toFixed(0)} MB`,
  )
  await stores.close()
}
