import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import {
  call,
  createAccountWithCli,
  freePort,
  serviceEnvironment,
  shiplogCli,
  spawnServer,
} from '../support/process.ts'
import { until } from '../support/progress.ts'
import { redisOn } from '../support/redis.ts'

t.test('start-up faults are one clear line and a non-zero exit', async (t) => {
  const env = await serviceEnvironment(t)
  const taken = createServer().listen(Number(env.PORT), '127.0.0.1')
  t.teardown(() => taken.close())
  await new Promise((r) => taken.on('listening', r))
  const inUse = shiplogCli(['serve'], env)
  t.equal(inUse.status, 1)
  t.equal(inUse.stderr.trim(), `shiplog: port ${env.PORT} is already in use: set PORT`)

  // The data directory's faults are the embedded stores' (whatever stores the suite runs on).
  const { DATABASE_URL: _, SHIPLOG_SECRET_KEY: __, ...embedded } = env
  writeFileSync(join(env.DATA_DIR, 'a-file'), 'not a directory')
  const readOnly = shiplogCli(['serve'], { ...embedded, PORT: '0', DATA_DIR: join(env.DATA_DIR, 'a-file', 'data') })
  t.equal(readOnly.status, 1)
  t.match(
    readOnly.stderr.trim(),
    /^shiplog: the data directory .*a-file\/data is not writable \([A-Z]+\): set DATA_DIR$/,
  )

  // A file where the folder should be: named, not better-sqlite3's SQLITE_CANTOPEN stack.
  const file = shiplogCli(['serve'], { ...embedded, PORT: '0', DATA_DIR: join(env.DATA_DIR, 'a-file') })
  t.equal(file.status, 1)
  t.match(file.stderr, /^shiplog: the data directory .*a-file is a file, not a directory: set DATA_DIR\n$/)

  // A folder whose parent says it is missing yet cannot make it: refused at once, not retried for ever.
  const proc = shiplogCli(['serve'], { ...embedded, PORT: '0', DATA_DIR: '/proc/shiplog-data' })
  t.equal(proc.status, 1)
  t.equal(proc.stderr.trim(), 'shiplog: the data directory /proc/shiplog-data is not writable (ENOENT): set DATA_DIR')

  const proxy = shiplogCli(['serve'], { ...env, PORT: '0', TRUST_PROXY: 'maybe' })
  t.equal(proxy.status, 2)
  t.match(proxy.stderr, /^Invalid configuration: TRUST_PROXY must be true, false, or addresses.*, not "maybe"\n$/)
  const port = shiplogCli(['serve'], { ...env, PORT: '99999' })
  t.equal(port.status, 2)
  t.equal(port.stderr, 'Invalid configuration: PORT must be a whole number from 0 to 65535, not "99999"\n')
  t.notMatch(proxy.stderr, /\s+at /, 'no stack trace')

  const mongo = shiplogCli(['serve'], { ...env, PORT: '0', MONGODB_URL: 'mongodb://user:secret@127.0.0.1:9/shiplog' })
  t.equal(mongo.status, 1)
  t.match(
    mongo.stderr.trim(),
    /^shiplog: MongoDB at mongodb:\/\/user:\*\*\*@127\.0\.0\.1:9\/shiplog (is unreachable|did not answer)/,
  )
  t.notMatch(mongo.stderr, /secret/)
  t.equal(mongo.stderr.trim().split('\n').length, 1)

  const postgres = shiplogCli(['serve'], {
    ...env,
    PORT: '0',
    DATABASE_URL: 'postgres://user:secret@127.0.0.1:9/shiplog',
    SHIPLOG_SECRET_KEY: '0'.repeat(64),
  })
  t.equal(postgres.status, 1)
  t.match(
    postgres.stderr.trim(),
    /^shiplog: PostgreSQL at postgres:\/\/user:\*\*\*@127\.0\.0\.1:9\/shiplog is unreachable/,
  )
  t.notMatch(postgres.stderr, /secret/)
  t.equal(postgres.stderr.trim().split('\n').length, 1)
  const keyless = shiplogCli(['serve'], { ...embedded, PORT: '0', DATABASE_URL: 'postgres://127.0.0.1:9/shiplog' })
  t.equal(keyless.status, 1)
  t.match(keyless.stderr, /^shiplog: set SHIPLOG_SECRET_KEY to 32 random bytes .*openssl rand -base64 32/)
  t.equal(keyless.stderr.trim().split('\n').length, 1)
})

t.test(
  'Redis away: health and tracker writes go on, jobs wait, the log says so once, SIGTERM still stops',
  async (t) => {
    const redis = await redisOn(t, await freePort())
    const env = await serviceEnvironment(t, { REDIS_URL: redis.url, LOG_LEVEL: 'info' })
    const account = createAccountWithCli(env)
    const server = await spawnServer(env, { stdio: 'pipe' })
    t.teardown(() => server.kill('SIGKILL'))
    let log = ''
    let stderr = ''
    server.child.stdout!.on('data', (d) => {
      log += d
    })
    server.child.stderr!.on('data', (d) => {
      stderr += d
    })
    const ready = async () => (await fetch(`${server.url}/readyz`)).status
    for (let i = 0; i < 100 && (await ready()) !== 200; i++) await new Promise((r) => setTimeout(r, 50))
    t.equal(await ready(), 200)

    await redis.kill()
    await until(ready, (status) => status === 503)
    t.pass('/readyz says so')
    const readiness = (await (await fetch(`${server.url}/readyz`)).json()) as { checks: Record<string, string> }
    t.equal(readiness.checks.redis, 'unavailable', 'which dependency, without its error message or address')
    t.equal((await fetch(`${server.url}/healthz`)).status, 200)
    const write = await call(server.url, account.private_key, '/v1/trackers', {
      method: 'POST',
      body: JSON.stringify({ trackers: [{ order_number: 'RD-1', tracking_number: 'T' }] }),
    })
    t.equal(write.status, 201, 'tracker upserts go on')
    t.equal((await call(server.url, account.private_key, '/v2/orders?order_number=RD-1')).status, 200)
    const upload = await fetch(`${server.url}/v2/pickup_points/import`, {
      method: 'POST',
      headers: { authorization: account.private_key },
      body: csvForm(pickupPointCsv([point('RD-P')])),
    })
    t.equal(upload.status, 202, 'an import is accepted: it waits in its stream')
    const job = (await upload.json()) as { id: number }
    const unreachable = () => log.split('\n').filter((l) => l.includes('Redis is unreachable')).length
    // Each connection says so once, however often it retries: watched for 2 s of retries (several a second) after the last first word.
    await until(
      async () => unreachable(),
      (n) => n >= 4,
    )
    await new Promise((r) => setTimeout(r, 2000))
    t.equal(
      unreachable(),
      6,
      'once per connection (queue, job worker, webhook sender, attempt limits, delay sweep, store updates)',
    )
    t.notMatch(log, /"stack"/, 'no stack traces')
    t.equal(stderr, '', 'nothing on stderr: every line of the log is JSON on stdout')
    t.ok(
      log
        .trim()
        .split('\n')
        .every((line) => line.startsWith('{')),
      'JSON lines only',
    )

    await redis.start()
    await until(
      async () =>
        ((await (await call(server.url, account.private_key, `/v2/jobs/${job.id}`)).json()) as { status: string })
          .status,
      (status) => status === 'completed',
      60_000,
    )
    t.pass('queued work resumes when Redis is back')
    t.ok(log.includes('Redis is reachable again'))

    await redis.kill()
    await until(ready, (status) => status === 503)
    const code = await server.kill('SIGTERM')
    t.equal(typeof code, 'number', `the process handled SIGTERM and exited by itself (${code}), Redis away`)
  },
)

t.test('SIGTERM to `npm start` (what a process manager sends) stops the service and says so', async (t) => {
  // Port 0: the service takes a port nobody holds and names it in its log, so no
  // other test's server can answer in its place.
  const env = await serviceEnvironment(t, { LOG_LEVEL: 'info', PORT: '0' })
  const npm = spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => npm.kill('SIGKILL'))
  let log = ''
  let stderr = ''
  npm.stdout.on('data', (d) => {
    log += d
  })
  npm.stderr.on('data', (d) => {
    stderr += d
  })
  const lines = () =>
    log
      .split('\n')
      .slice(0, -1) // complete lines only: the last is still being written
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; port?: number; signal?: string })
  // 'close', not 'exit': the log's last lines are read by then.
  const exited = once(npm, 'close')
  // npm, the freshness check of dist/ and the server's start: up to a minute on a host running eight test files at once.
  for (let i = 0; i < 1200 && !lines().some((l) => l.msg === 'shiplog started') && npm.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 50))
  const port = lines().find((l) => l.msg === 'shiplog started')?.port
  const up = () =>
    fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
  t.ok(port && (await up()), `started through npm start${port ? '' : `: ${stderr}`}`)
  npm.kill('SIGTERM')
  const [code, signal] = await exited
  t.equal(code, 0, `the process ended itself (code ${code}, signal ${signal}) ${stderr}`)
  t.notOk(await up(), 'nothing serves the port any more')
  t.match(
    lines().filter((line) => line.msg === 'shiplog stopped'),
    [{ signal: 'SIGTERM' }],
    'one line says the service stopped',
  )
})
