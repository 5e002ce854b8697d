import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import t from 'tap'
import { PARQUET_ROW_GROUP } from '../../cli/events.ts'
import { call, createAccountWithCli, serviceEnvironment, shiplogCli, spawnServer } from '../support/process.ts'

/*
 * `shiplog events export --format parquet`, read back by DuckDB and held to
 * the NDJSON export of the same log, row for row: typed columns, several row
 * groups, the same filters.
 */

interface Line {
  stream: string
  revision: number
  position: string
  type: string
  data: unknown
  metadata: { accountId: number; recordedAt: number }
  recorded_at: string
}

/** The NDJSON export of the same log, through a file (a pipe's output is capped). */
const ndjson = (env: NodeJS.ProcessEnv, args: string[]): Line[] => {
  const file = join(env.DATA_DIR!, `export-${args.join('-')}.ndjson`)
  const run = shiplogCli(['events', 'export', ...args, '--output', file], env)
  if (run.status !== 0) throw new Error(run.stderr)
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line)
}

async function parquetRows(file: string) {
  const db = await DuckDBInstance.create(':memory:')
  const connection = await db.connect()
  try {
    const read = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS()
    const columns = await read(`DESCRIBE SELECT * FROM read_parquet('${file}')`)
    const rows = await read(
      `SELECT position, stream, revision, type, account_id, epoch_ms(recorded_at) AS recorded_ms, data, metadata FROM read_parquet('${file}') ORDER BY position`,
    )
    const groups = await read(`SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('${file}')`)
    return {
      types: Object.fromEntries(columns.map((c) => [c.column_name, c.column_type])),
      rows,
      rowGroups: Number(groups[0]!.n),
    }
  } finally {
    connection.closeSync()
  }
}

t.test('the Parquet export is the NDJSON export, typed, in row groups, with the same filters', async (t) => {
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env)
  const other = createAccountWithCli(env, 'Other')
  const server = await spawnServer(env)
  for (let batch = 0; batch < 8; batch++) {
    const trackers = Array.from({ length: 1000 }, (_, i) => ({
      order_number: `P-${batch}-${i}`,
      tracking_number: `PQ${batch}${String(i).padStart(6, '0')}`,
      carrier_code: 'dhl',
      email: `c${i}@example.com`,
      address_country: i % 2 ? 'DE' : 'FR',
    }))
    const created = await call(server.url, account.private_key, '/v1/trackers', {
      method: 'POST',
      body: JSON.stringify({ trackers }),
    })
    t.ok(created.status < 300, `batch ${batch} accepted`)
  }
  const day = 86_400
  const scans = Array.from({ length: 40 }, (_, i) => [
    { tracking_number: `PQ0${String(i).padStart(6, '0')}`, event_type_code: 'origin_scan', happened_at: 1_780_000_000 },
    {
      tracking_number: `PQ0${String(i).padStart(6, '0')}`,
      event_type_code: 'delivered',
      happened_at: 1_780_000_000 + (2 + (i % 3)) * day,
    },
  ]).flat()
  const scanned = await call(server.url, account.private_key, '/v2/trackers/events', {
    method: 'POST',
    body: JSON.stringify({ events: scans }),
  })
  t.ok(scanned.status < 300, 'carrier events recorded')
  await call(server.url, other.private_key, '/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers: [{ order_number: 'O-1', tracking_number: 'OTHER1' }] }),
  })
  await server.kill()

  const file = join(env.DATA_DIR!, 'events.parquet')
  const run = shiplogCli(['events', 'export', '--format', 'parquet', '--output', file], env)
  t.equal(run.status, 0, run.stderr)
  const lines = ndjson(env, [])
  t.match(run.stderr, `${lines.length} events written to ${file}`)
  t.ok(statSync(file).size > 0)

  const { types, rows, rowGroups } = await parquetRows(file)
  t.same(types, {
    position: 'BIGINT',
    stream: 'VARCHAR',
    revision: 'BIGINT',
    type: 'VARCHAR',
    account_id: 'BIGINT',
    recorded_at: 'TIMESTAMP',
    data: 'VARCHAR',
    metadata: 'VARCHAR',
  })
  t.ok(lines.length > 2 * PARQUET_ROW_GROUP, `${lines.length} events`)
  t.equal(rowGroups, Math.ceil(lines.length / PARQUET_ROW_GROUP), 'written a row group at a time')
  t.equal(rows.length, lines.length, 'every event')
  const differing = lines.filter((line, i) => {
    const row = rows[i]!
    return (
      String(row.position) !== line.position ||
      row.stream !== line.stream ||
      Number(row.revision) !== line.revision ||
      row.type !== line.type ||
      Number(row.account_id) !== line.metadata.accountId ||
      Number(row.recorded_ms) !== Date.parse(line.recorded_at) ||
      JSON.stringify(JSON.parse(String(row.data))) !== JSON.stringify(line.data) ||
      JSON.stringify(JSON.parse(String(row.metadata))) !== JSON.stringify(line.metadata)
    )
  })
  t.same(differing, [], 'row for row the same as the NDJSON export')

  const filter = ['--type', 'TrackerCreated', '--account', String(other.id)]
  const filtered = join(env.DATA_DIR!, 'filtered.parquet')
  t.equal(shiplogCli(['events', 'export', ...filter, '--format', 'parquet', '--output', filtered], env).status, 0)
  const some = await parquetRows(filtered)
  t.same(
    some.rows.map((r) => String(r.position)),
    ndjson(env, filter).map((l) => l.position),
    'the same filters',
  )
  t.equal(some.rows.length, 1)

  // docs/analytics.md's recipes, each run against this export.
  const recipes = [...readFileSync('docs/analytics.md', 'utf8').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!)
  t.ok(recipes.length >= 4)
  const db = await DuckDBInstance.create(':memory:')
  const connection = await db.connect()
  const answers = []
  for (const sql of recipes) {
    const rows = (await connection.runAndReadAll(sql.replaceAll("'events.parquet'", `'${file}'`))).getRowObjectsJS()
    t.ok(rows.length > 0, `a recipe answers: ${sql.split('\n')[0]}`)
    answers.push(rows)
  }
  connection.closeSync()
  t.match(answers[1]![0], { carrier: 'dhl', parcels: 20n }, 'transit per lane: dhl to each country')
  t.same(new Set(answers[1]!.map((r) => r.median_days)), new Set([3]), 'the lanes’ median transit, in days')

  const noFile = shiplogCli(['events', 'export', '--format', 'parquet'], env)
  t.equal(noFile.status, 2)
  t.match(noFile.stderr, /--format parquet needs --output <file>/)
  const wrong = shiplogCli(['events', 'export', '--format', 'csv'], env)
  t.not(wrong.status, 0)
  t.match(wrong.stderr, /expected ndjson or parquet/)
})
