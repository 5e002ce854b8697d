import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
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

/**
 * `shiplog serve` in a process of its own on `env`'s PORT, once it answers
 * /healthz. A port found free may be taken before the server binds it (test
 * files run side by side, and every outgoing connection takes a port too):
 * the server then exits, and is started again on another port. Its health is
 * asked once the listening socket is its own, so a server that took the port
 * meanwhile is neither mistaken for it nor sent requests.
 */
export async function spawnServer(
  env: NodeJS.ProcessEnv & { PORT: string },
  options: { nodeArgs?: string[]; stdio?: 'inherit' | 'ignore' | 'pipe' } = {},
): Promise<ServerProcess> {
  const stdio = options.stdio ?? 'ignore'
  for (let attempt = 1; ; attempt++) {
    const port = attempt === 1 ? env.PORT : String(await freePort())
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'bin/shiplog.js', 'serve'], {
      env: { ...env, PORT: port },
      stdio: [stdio, stdio, 'pipe'],
    })
    // Its errors are kept to say why it did not start, and shown as they come where the caller asked for its output.
    let errors = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-4000)
    })
    if (stdio === 'inherit') child.stderr!.pipe(process.stderr)
    // A test or benchmark that throws must not leave its server running (and holding the terminal's output).
    const killOnExit = () => child.kill('SIGKILL')
    process.once('exit', killOnExit)
    const closed = once(child, 'close')
    const exited = once(child, 'exit').then(([code, signal]) => {
      process.off('exit', killOnExit)
      return (code ?? signal) as number | string
    })
    const url = `http://127.0.0.1:${port}`
    for (let i = 0; ; i++) {
      // Health is asked only of the child's own socket: whatever else holds the port (another test's
      // receiver, say) is never sent a request it would count.
      const up =
        listensOn(child.pid!, Number(port)) &&
        (await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      if (up) {
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
      if (child.exitCode !== null) break
      // Up to a minute: a host running eight test files at once can take that long to start one.
      if (i > 1200) throw new Error('the server did not start')
      await new Promise((r) => setTimeout(r, 50))
    }
    await closed
    if (attempt === 3 || !errors.includes('is already in use'))
      throw new Error(`the server did not start (exit ${child.exitCode}): ${errors.trim()}`)
  }
}

/** The inodes of the sockets listening on `port` (Linux's /proc/net tables; none elsewhere). */
function listeningSockets(port: number) {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      // sl local_address rem_address st … inode: a listening socket's state is 0A.
      const fields = line.trim().split(/\s+/)
      if (fields[3] === '0A' && Number.parseInt(fields[1]!.split(':')[1]!, 16) === port) inodes.add(fields[9]!)
    }
  }
  return inodes
}

/** The socket inodes process `pid` holds open. */
function socketsOf(pid: number) {
  try {
    return readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
      } catch {
        return undefined
      }
    })
  } catch {
    return []
  }
}

/** Whether process `pid` is the one listening on `port`; true where /proc cannot tell. */
function listensOn(pid: number, port: number) {
  if (!existsSync('/proc/net/tcp')) return true
  const listening = listeningSockets(port)
  return socketsOf(pid).some((inode) => inode !== undefined && listening.has(inode))
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

/**
 * The service as a child process on its stores, as an operator's crash would
 * meet it: first without its worker role (what it stores, nothing sends),
 * then killed with SIGKILL and started again whole, as often as a test asks.
 */
export async function crashableService(t: Test, env: NodeJS.ProcessEnv & { PORT: string }) {
  const account = createAccountWithCli(env)
  let current = await spawnServer({ ...env, ROLES: 'command,query,projector' })
  t.teardown(() => current.kill('SIGKILL'))
  return {
    account,
    get url() {
      return current.url
    },
    /** A request with the account's private key. */
    call: (path: string, init?: RequestInit) => call(current.url, account.private_key, path, init),
    kill: () => current.kill('SIGKILL'),
    async crashAndRestart() {
      await current.kill('SIGKILL')
      current = await spawnServer(env)
    },
  }
}
