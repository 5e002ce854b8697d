import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAccountCommand } from '../cli/accounts.ts'
import { startServer } from '../cli/serve.ts'
import { loadConfig } from '../shared/config.ts'

/** A server with embedded stores in a temporary folder and one account, as a benchmark needs it. */
export async function benchServer(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-bench-'))
  const server = await startServer(
    loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', QUEUE_NAME: `bench-${randomUUID()}`, ...env }),
  )
  const account = await createAccountCommand(server.runtime, 'Bench')
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

export function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

export const conditions = () =>
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, embedded SQLite stores (WAL) in ${tmpdir()}`

export const ms = (n: number) => `${n.toFixed(1)} ms`
