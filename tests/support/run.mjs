#!/usr/bin/env node
/**
 * The test command: lints (Biome), type-checks, makes sure a Redis server is there for the
 * job queue (its own, on a free port; Debian's redis-server is installed when
 * missing and we are root), runs tap, stops what it started, and ends with one
 * line `N passed, N failed` counted over every test of every file.
 */
import { spawn, spawnSync } from 'node:child_process'
import { connect, createServer } from 'node:net'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { stdio: 'inherit', ...opts }).status ?? 1

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })

function redisServerBinary() {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim()
  if (found) return found
  if (process.getuid?.() !== 0) return undefined
  console.log('# redis-server is missing: installing Debian package redis-server')
  run('apt-get', ['update', '-qq'])
  run('apt-get', ['install', '-y', '-qq', 'redis-server'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  return spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim() || undefined
}

const pings = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
    socket.on('data', (d) => {
      socket.destroy()
      resolve(d.toString().startsWith('+PONG'))
    })
    socket.on('error', () => resolve(false))
  })

/** Whether something accepts connections on the port. */
const listens = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
  })

/**
 * The PostgreSQL suites use DATABASE_URL, else the machine's server on
 * 127.0.0.1:5432. One that is installed but stopped is started (as root,
 * with Debian's pg_ctlcluster) and stopped again at the end; with none,
 * the suites skip with the reason.
 */
async function ensurePostgres() {
  if (process.env.DATABASE_URL) return { note: `against DATABASE_URL`, stop: () => {} }
  if (await listens(5432)) return { note: 'against 127.0.0.1:5432 (DATABASE_URL names another)', stop: () => {} }
  const clusters = spawnSync('sh', ['-c', 'command -v pg_lsclusters >/dev/null && pg_lsclusters -h'], {
    encoding: 'utf8',
  }).stdout.trim()
  if (!clusters || process.getuid?.() !== 0) return { note: undefined, stop: () => {} }
  const [version, name] = clusters.split('\n')[0].split(/\s+/)
  console.log(`# PostgreSQL ${version}/${name} is installed but stopped: starting it for the tests`)
  run('pg_ctlcluster', [version, name, 'start'])
  for (let i = 0; i < 100 && !(await listens(5432)); i++) await new Promise((r) => setTimeout(r, 100))
  if (!(await listens(5432))) return { note: undefined, stop: () => {} }
  return {
    note: 'against 127.0.0.1:5432, started for the tests',
    stop: () => spawnSync('pg_ctlcluster', [version, name, 'stop'], { stdio: 'ignore' }),
  }
}

async function startRedis() {
  const bin = redisServerBinary()
  if (!bin) throw new Error('no redis-server and cannot install one (not root): install Redis or set REDIS_URL')
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'shiplog-redis-'))
  const child = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  )
  for (let i = 0; i < 200 && !(await pings(port)); i++) await new Promise((r) => setTimeout(r, 50))
  return {
    url: `redis://127.0.0.1:${port}`,
    bin,
    stop: () => {
      child.kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

if (run('node_modules/.bin/biome', ['check', '--error-on-warnings', '.']) !== 0) {
  console.log('lint failed: npm run format fixes formatting, the rest is named above')
  console.log('0 passed, 1 failed')
  process.exit(1)
}

const tsc = run('node_modules/.bin/tsc', ['--noEmit', '-p', '.'])
if (tsc !== 0) {
  console.log('type check failed')
  console.log('0 passed, 1 failed')
  process.exit(1)
}

// The processes the tests start (servers, the shiplog command) run the service
// compiled, as npm start does: built here when a source changed.
if (run(process.execPath, ['bin/build.mjs', '--if-stale']) !== 0) {
  console.log('build failed')
  console.log('0 passed, 1 failed')
  process.exit(1)
}

// tap compiles its configured plugins (tsx instead of its TypeScript plugin)
// on first use, but that first run would still load the default set: build first.
if (run('node_modules/.bin/tap', ['build'], { stdio: ['ignore', 'ignore', 'inherit'] }) !== 0) {
  console.log('0 passed, 1 failed')
  process.exit(1)
}

/**
 * The browser tests drive Debian's Chromium: installed here when it is
 * missing and we are root; otherwise they skip, saying why.
 */
function ensureChromium() {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (existsSync(path)) return `# browser suites run in ${path}`
  if (process.getuid?.() !== 0)
    return `# browser suites will be skipped: no Chromium at ${path} (apt-get install chromium)`
  console.log('# chromium is missing: installing Debian package chromium')
  run('apt-get', ['update', '-qq'])
  run('apt-get', ['install', '-y', '-qq', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  return existsSync(path)
    ? `# browser suites run in ${path}, installed for the tests`
    : `# browser suites will be skipped: chromium could not be installed`
}

const chromium = ensureChromium()
const redis = await startRedis()
const postgres = await ensurePostgres()
// Redis and the tests go with the runner however it ends: interrupted,
// terminated, or its output closed (an EPIPE when piped into `head`).
let tap
process.on('exit', () => {
  tap?.kill('SIGTERM')
  redis.stop()
  postgres.stop()
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => process.exit(130))
process.stdout.on('error', () => process.exit(1))
console.log(`# redis-server for the tests at ${redis.url}`)
for (const [name, url] of [
  ['KurrentDB', 'EVENTSTORE_URL'],
  ['MongoDB', 'MONGODB_URL'],
]) {
  if (!process.env[url])
    console.log(`# ${name} suites will be skipped: ${url} is not set (no ${name} server on this machine)`)
}
console.log(chromium)
console.log(
  postgres.note
    ? `# PostgreSQL suites run ${postgres.note}`
    : '# PostgreSQL suites will be skipped: none answers at 127.0.0.1:5432 and none could be started (set DATABASE_URL)',
)

let passed = 0
let failed = 0
let skipped = 0
// Twice as many test files at once as there are cores: most of a file's time is
// spent waiting (retry schedules, polls, child processes starting), not computing.
const jobs = Math.max(4, 2 * availableParallelism())
tap = spawn('node_modules/.bin/tap', ['--reporter=tap', `--jobs=${jobs}`, ...process.argv.slice(2)], {
  env: { ...process.env, REDIS_URL: redis.url, REDIS_SERVER_BIN: redis.bin },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let buffered = ''
tap.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  buffered += chunk
  const lines = buffered.split('\n')
  buffered = lines.pop()
  for (const line of lines) {
    // Depth 1 inside a file: each t.test() of each test file.
    const m = /^ {4}(not )?ok \d+/.exec(line)
    if (!m) continue
    if (/# SKIP/i.test(line)) skipped++
    else if (m[1]) failed++
    else passed++
  }
})
const code = await new Promise((resolve) => tap.on('close', (c) => resolve(c ?? 1)))
if (code !== 0 && failed === 0) failed = 1 // a file that crashed before reporting
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(code)
