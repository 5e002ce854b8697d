import { spawn, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
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

/**
 * The server as users run it: `shiplog serve` in a process of its own, so the
 * benchmark's client does not share its event loop.
 */
export async function benchServerProcess(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-bench-'))
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  const childEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', QUEUE_NAME: `bench-${randomUUID()}`, ...env }
  const created = spawnSync(process.execPath, ['bin/shiplog.js', 'accounts', 'create', '--name', 'Bench'], { env: childEnv, encoding: 'utf8' })
  if (created.status !== 0) throw new Error(created.stderr)
  const account = JSON.parse(created.stdout) as { id: number; private_key: string }
  // BENCH_SERVER_NODE_ARGS passes node flags to the server (--cpu-prof, say).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const child = spawn(process.execPath, [...nodeArgs, 'bin/shiplog.js', 'serve'], { env: childEnv, stdio: 'inherit' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break
    if (i > 300) throw new Error('the server did not start')
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    pid: child.pid,
    dataDir,
    key: account.private_key,
    accountId: account.id,
    /** The server's resident memory now and at its peak, in MB, as the kernel counts them (Linux). */
    memoryMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
      return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
    },
    /** CPU seconds the server has used so far, every thread included (Linux). */
    cpuSeconds() {
      // Fields 14 and 15 of /proc/<pid>/stat: user and system time in clock ticks (100 per second).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return (Number(fields[11]) + Number(fields[12])) / 100
    },
    /** CPU seconds per thread so far, by thread id (Linux). */
    threadCpuSeconds() {
      return new Map(
        readdirSync(`/proc/${child.pid}/task`).map((tid) => {
          const fields = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')
          return [Number(tid), (Number(fields[11]) + Number(fields[12])) / 100] as const
        }),
      )
    },
    async close() {
      child.kill('SIGTERM')
      await once(child, 'exit')
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
