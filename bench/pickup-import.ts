/**
 * Pickup point CSV import: a generated file uploaded over HTTP, rows per second
 * from upload to job `completed` (results readable), and the server's peak
 * memory, for 10,000 and 100,000 rows side by side. Each size runs against a
 * fresh `shiplog serve` process, so its peak resident memory (VmHWM) is the
 * server's own, not this client's.
 * Targets: ≥ 20,000 rows/s; peak memory at 100,000 rows within 50 MB of 10,000.
 */
import { once } from 'node:events'
import { createWriteStream, openAsBlob } from 'node:fs'
import { join } from 'node:path'
import { pickupPointColumns } from '../command-api/pickup-points/row.ts'
import { benchServerProcess, conditions } from './support.ts'

const sizes = (process.env.BENCH_ROWS ?? '10000,100000').split(',').map(Number)

console.log(`pickup-import: semicolon CSV of 40 columns uploaded over HTTP to a fresh server process per size; ${conditions(true)}`)
for (const rows of sizes) {
  const server = await benchServerProcess()
  // The file is written to disk and uploaded from there, so this client never holds it whole.
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
  const idleMb = server.memoryMb().rss
  const started = performance.now()
  const cpu = server.cpuMeter()
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
  const cpuPerRow = cpu.per(rows, 'row', 'µs')
  const { peak } = server.memoryMb()
  await server.close()
  console.log(
    `${rows.toLocaleString('en').padStart(10)} rows: ${Math.round(rows / seconds).toLocaleString('en').padStart(7)} rows/s (${seconds.toFixed(1)} s), ` +
      `server peak RSS ${peak.toFixed(0)} MB (idle before the upload: ${idleMb.toFixed(0)} MB), ${cpuPerRow}`,
  )
}
