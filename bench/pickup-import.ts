/**
 * Pickup point CSV import: a generated file uploaded over HTTP, rows per second
 * from upload to job `completed`, and the process's peak memory, for 10,000
 * and 100,000 rows side by side (each size in a fresh process).
 * Targets: ≥ 20,000 rows/s; peak memory at 100,000 rows within 50 MB of 10,000.
 */
import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, openAsBlob } from 'node:fs'
import { join } from 'node:path'
import { pickupPointColumns } from '../command-api/pickup-points/row.ts'
import { benchServer, conditions } from './support.ts'

const sizes = (process.env.BENCH_ROWS ?? '10000,100000').split(',').map(Number)
const only = process.argv[2]

if (only === undefined) {
  console.log(`pickup-import: semicolon CSV of 40 columns uploaded over HTTP, each size in a fresh process; ${conditions()}`)
  // RSS follows V8's heap sizing as much as live data: each size also runs with the old
  // space capped, which an import that held its file or its results in memory could not survive.
  for (const heap of [[], ['--max-old-space-size=160']]) {
    console.log(heap.length ? 'with --max-old-space-size=160:' : 'default heap:')
    for (const rows of sizes) {
      const child = spawnSync(process.execPath, [...heap, '--import', 'tsx', 'bench/pickup-import.ts', String(rows)], { encoding: 'utf8' })
      if (child.status !== 0) throw new Error(child.stderr)
      const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { rows: number; seconds: number; baseMb: number; peakMb: number }
      console.log(
        `${r.rows.toLocaleString('en').padStart(10)} rows: ${Math.round(r.rows / r.seconds).toLocaleString('en').padStart(7)} rows/s (${r.seconds.toFixed(1)} s), ` +
          `peak RSS ${r.peakMb.toFixed(0)} MB (${(r.peakMb - r.baseMb).toFixed(0)} MB above the idle server)`,
      )
    }
  }
} else {
  const rows = Number(only)
  const server = await benchServer()
  // The file is written to disk and uploaded from there, so this process never holds it whole.
  const hours = '09:00;12:00;14:00;19:00;'.repeat(6) + ';;;'
  const file = join(server.dataDir, 'points.csv')
  const out = createWriteStream(file)
  out.write(`${pickupPointColumns.join(';')}\n`)
  for (let i = 0; i < rows; i++) {
    const line = `PP-${i};;Relais ${i};${i} rue de la Paix;;Paris;75002;;FR;48.86${i % 10};2.33${i % 7};+33123456789;${hours}\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  const baseMb = process.memoryUsage().rss / 2 ** 20
  let peakMb = baseMb
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, process.memoryUsage().rss / 2 ** 20)), 10)
  const started = performance.now()
  const form = new FormData()
  form.append('file', await openAsBlob(file), 'points.csv')
  const upload = (await (await fetch(`${server.url}/v2/pickup_points/import`, { method: 'POST', headers: { authorization: server.key }, body: form })).json()) as { id: number }
  for (;;) {
    const job = (await (await fetch(`${server.url}/v2/jobs/${upload.id}`, { headers: { authorization: server.key } })).json()) as { status: string; results?: unknown[] }
    if (job.status === 'failed') throw new Error('import failed')
    if (job.status === 'completed' && job.results?.length === rows) break
    await new Promise((r) => setTimeout(r, 20))
  }
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  await server.close()
  console.log(JSON.stringify({ rows, seconds, baseMb, peakMb }))
}
