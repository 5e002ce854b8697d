import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import type { Test } from 'tap'
import { storesOnPostgres } from './postgres.ts'
import { tempDir } from './temp.ts'

/** A TCP port nobody listens on now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
    probe.on('error', reject)
  })

/** Runs the `shiplog` executable to its end, as an operator would. */
export const shiplogCli = (args: string[], env: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, ['bin/shiplog.js', ...args], { env, encoding: 'utf8' })

/** Creates an account with the CLI on the stores `env` names. */
export function createAccountWithCli(env: NodeJS.ProcessEnv, name = 'Merchant') {
  const created = shiplogCli(['accounts', 'create', '--name', name], env)
  if (created.status !== 0) throw new Error(created.stderr)
  return JSON.parse(created.stdout) as { id: number; private_key: string; public_key: string }
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>
  kill(signal?: NodeJS.Signals): Promise<number | string>
}

/** `shiplog serve` in a process of its own on `env`'s PORT, once it answers /healthz. */
export async function spawnServer(
  env: NodeJS.ProcessEnv & { PORT: string },
  options: { nodeArgs?: string[]; stdio?: 'inherit' | 'ignore' | 'pipe' } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'bin/shiplog.js', 'serve'], {
    env,
    stdio: options.stdio ?? 'ignore',
  })
  // A test or benchmark that throws must not leave its server running (and holding the terminal's output).
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const exited = once(child, 'exit').then(([code, signal]) => {
    process.off('exit', killOnExit)
    return (code ?? signal) as number | string
  })
  const url = `http://127.0.0.1:${env.PORT}`
  for (let i = 0; ; i++) {
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) break
    // Up to a minute: a host running eight test files at once can take that long to start one.
    if (i > 1200 || child.exitCode !== null) throw new Error('the server did not start')
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    child,
    exited,
    kill(signal = 'SIGTERM') {
      child.kill(signal)
      return exited
    },
  }
}

/** A service process's environment: its data directory, a free port on loopback, no log, a job queue of its own. */
export async function processEnvironment(
  dataDir: string,
  queuePrefix: string,
  extra: Record<string, string> = {},
): Promise<NodeJS.ProcessEnv & { DATA_DIR: string; PORT: string; QUEUE_NAME: string }> {
  return {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    QUEUE_NAME: `${queuePrefix}-${randomUUID()}`,
    ...extra,
  }
}

/** The executable's environment on a data directory of its own (removed when the test ends) and a free port. */
export const serviceEnvironment = (t: Test, extra: Record<string, string> = {}) =>
  processEnvironment(tempDir(t, 'shiplog-process-'), 'process', { ...storesOnPostgres(), ...extra })

/** A request to a service process with an account's key, JSON by default. */
export const call = (url: string, key: string, path: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: key, 'content-type': 'application/json', ...init.headers },
  })
