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
import { pickupPointColumns } from '../shared/domain/pickup-points/row.ts'
import { benchServerProcess, conditions, ms, percentile, type BenchServerProcess } from './support.ts'

const sizes = (process.env.BENCH_ROWS ?? '10000,100000').split(',').map(Number)
/**
 * Rows imported, unmeasured, before each measured import: a server that has
 * run one import has its CSV parser compiled by V8's optimiser, as any server
 * in service has (a first import spends ~100 ms parsing its first 64 KB in the
 * interpreter).
 */
const WARM_UP_ROWS = 2000

/** Writes a file of `rows` points to disk, so this client never holds it whole. */
async function writeCsv(file: string, rows: number, prefix: string) {
  const hours = `${'09:00;12:00;14:00;19:00;'.repeat(6)};;;`
  const out = createWriteStream(file)
  out.write(`${pickupPointColumns.join(';')}\n`)
  for (let i = 0; i < rows; i++) {
    const line = `${prefix}-${i};;Relais ${i};${i} rue de la Paix;;Paris;75002;;FR;48.86${i % 10};2.33${i % 7};+33123456789;${hours}\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

/**
 * Uploads the file and polls its job until it is completed with all its
 * results; gives the time each poll took while the job was not done yet (the
 * server's answers to other requests while it imports).
 */
async function importFile(server: BenchServerProcess, file: string, rows: number) {
  const form = new FormData()
  form.append('file', await openAsBlob(file), 'points.csv')
  const upload = (await (
    await fetch(`${server.url}/v2/pickup_points/import`, {
      method: 'POST',
      headers: { authorization: server.key },
      body: form,
    })
  ).json()) as { id: number }
  const polls: number[] = []
  for (;;) {
    const asked = performance.now()
    const job = (await (
      await fetch(`${server.url}/v2/jobs/${upload.id}`, { headers: { authorization: server.key } })
    ).json()) as { status: string; results?: unknown[] }
    if (job.status === 'failed') throw new Error('import failed')
    if (job.status === 'completed' && job.results?.length === rows) return polls
    polls.push(performance.now() - asked)
    await new Promise((r) => setTimeout(r, 20))
  }
}

console.log(
  `pickup-import: semicolon CSV of 40 columns uploaded over HTTP to a fresh server process per size, ` +
    `after a ${WARM_UP_ROWS.toLocaleString('en')}-row warm-up import; ${conditions(true)}`,
)
for (const rows of sizes) {
  const server = await benchServerProcess()
  try {
    const warmUp = join(server.dataDir, 'warm-up.csv')
    await writeCsv(warmUp, WARM_UP_ROWS, 'W')
    await importFile(server, warmUp, WARM_UP_ROWS)
    const file = join(server.dataDir, 'points.csv')
    await writeCsv(file, rows, 'PP')
    const idleMb = server.memoryMb().rss
    const started = performance.now()
    const cpu = server.cpuMeter()
    const polls = await importFile(server, file, rows)
    const seconds = (performance.now() - started) / 1000
    const cpuPerRow = cpu.per(rows, 'row', 'µs')
    const { peak } = server.memoryMb()
    console.log(
      `${rows.toLocaleString('en').padStart(10)} rows: ${Math.round(rows / seconds)
        .toLocaleString('en')
        .padStart(7)} rows/s (${seconds.toFixed(1)} s), ` +
        `server peak RSS ${peak.toFixed(0)} MB (idle before the upload: ${idleMb.toFixed(0)} MB), ${cpuPerRow}; ` +
        `GET /v2/jobs/{id} meanwhile median ${ms(percentile(polls, 50))}, p99 ${ms(percentile(polls, 99))}`,
    )
  } finally {
    await server.close()
  }
}
