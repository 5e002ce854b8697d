import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import t from 'tap'
import { call, createAccountWithCli, serviceEnvironment, shiplogCli, spawnServer } from '../support/process.ts'

/** The rebuild shadow tables (`<collection>__rebuild`) in the read store of a service environment. */
async function shadowTablesOf(env: Record<string, string | undefined>): Promise<string[]> {
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL)
    const client = new pg.Client({ connectionString: env.DATABASE_URL })
    await client.connect()
    try {
      const { rows } = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE '%\\_\\_rebuild'",
        [url.searchParams.get('schema') ?? 'public'],
      )
      return rows.map((r: { table_name: string }) => r.table_name)
    } finally {
      await client.end()
    }
  }
  const file = join(env.DATA_DIR!, 'read.db')
  if (!existsSync(file)) return []
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%\\_\\_rebuild' ESCAPE '\\'")
      .pluck()
      .all() as string[]
  } finally {
    db.close()
  }
}

t.test('the CLI: --version, accounts list, rotate-keys, delete', async (t) => {
  const env = await serviceEnvironment(t)
  const untranslated = shiplogCli(['accounts', 'create', '--name', 'X', '--language', 'xx'], env)
  t.not(untranslated.status, 0, 'a language without notifications is refused')
  t.match(untranslated.stderr, /must be a language shiplog writes notifications in: en, fr, de, es, it, nl/)
  const version = shiplogCli(['--version'], env)
  t.equal(version.stdout.trim(), JSON.parse(readFileSync('package.json', 'utf8')).version)
  const account = createAccountWithCli(env, 'Acme')
  const other = createAccountWithCli(env, 'Other')
  const server = await spawnServer(env)
  t.teardown(() => server.kill('SIGKILL'))
  t.equal((await call(server.url, account.private_key, '/v2/orders')).status, 200)

  const listed = shiplogCli(['accounts', 'list'], env)
  t.equal(listed.status, 0)
  const accounts = listed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  t.match(accounts, [
    { id: account.id, name: 'Acme', language_code: 'en', deleted: false },
    { id: other.id, name: 'Other', deleted: false },
  ])
  t.notMatch(listed.stdout, /sk_|pk_|hash/, 'no key is shown')

  const rotated = shiplogCli(['accounts', 'rotate-keys', '--id', String(account.id)], env)
  t.equal(rotated.status, 0)
  const keys = JSON.parse(rotated.stdout)
  t.match(keys, { id: account.id, private_key: /^sk_/, public_key: /^pk_/ })
  t.not(keys.private_key, account.private_key)
  t.equal((await call(server.url, account.private_key, '/v2/orders')).status, 401, 'the old key stops working at once')
  t.equal((await call(server.url, keys.private_key, '/v2/orders')).status, 200, 'the new one works')

  const deleted = shiplogCli(['accounts', 'delete', '--id', String(other.id)], env)
  t.equal(deleted.status, 0)
  t.equal((await call(server.url, other.private_key, '/v2/orders')).status, 401)
  t.match(JSON.parse(shiplogCli(['accounts', 'list'], env).stdout.trim().split('\n')[1]!), { deleted: true })
  const unknown = shiplogCli(['accounts', 'rotate-keys', '--id', '12345'], env)
  t.equal(unknown.status, 1)
  t.equal(unknown.stderr.trim(), 'shiplog: Account not found', 'one line, no stack trace')
})

t.test(
  'the CLI: events export ends quietly under | head, refuses an unknown --type, reads no empty data directory',
  async (t) => {
    const env = await serviceEnvironment(t)
    const account = createAccountWithCli(env)
    const server = await spawnServer(env)
    const items = Array.from({ length: 1000 }, (_, i) => ({ order_number: `E-${i}`, tracking_number: `T-${i}` }))
    await call(server.url, account.private_key, '/v1/trackers', {
      method: 'POST',
      body: JSON.stringify({ trackers: items }),
    })
    await server.kill()

    const head = spawn('sh', ['-c', 'node bin/shiplog.js events export | head -n 3'], { env })
    let out = ''
    let err = ''
    head.stdout.on('data', (d) => {
      out += d
    })
    head.stderr.on('data', (d) => {
      err += d
    })
    const code = await new Promise((r) => head.on('exit', r))
    t.equal(code, 0)
    t.equal(out.trim().split('\n').length, 3)
    t.equal(err, '', 'no EPIPE, no stack trace')

    const badType = shiplogCli(['events', 'export', '--type', 'TrackerTeleported'], env)
    t.equal(badType.status, 1)
    t.match(badType.stderr, /unknown event type TrackerTeleported; event types are .*TrackerCreated/)

    // A data directory that holds no embedded stores (whatever stores the suite runs on).
    const { DATABASE_URL: _, ...embedded } = env
    const nowhere = join(env.DATA_DIR, 'typo')
    const status = shiplogCli(['projections', 'status'], { ...embedded, DATA_DIR: nowhere })
    t.equal(status.status, 2)
    t.match(status.stderr, /no shiplog data at .*typo/)
    t.notOk(existsSync(nowhere), 'no empty data directory was made')
  },
)

t.test('projections rebuild is repeatable, and an interrupted one is cleaned up by the next', async (t) => {
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env)
  let server = await spawnServer(env)
  const items = Array.from({ length: 300 }, (_, i) => ({ order_number: `R-${i}`, tracking_number: `T-${i}` }))
  await call(server.url, account.private_key, '/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers: items }),
  })
  await server.kill()
  for (let run = 1; run <= 3; run++) {
    const rebuilt = shiplogCli(['projections', 'rebuild', '--all'], env)
    t.equal(rebuilt.status, 0, `rebuild ${run}: ${rebuilt.stderr.split('\n').at(-2) ?? ''}`)
    const lines = rebuilt.stderr.trim().split('\n')
    t.same(lines, [...new Set(lines)], `rebuild ${run}: each progress line once`)
  }
  const status = JSON.parse(shiplogCli(['projections', 'status'], env).stdout) as Record<string, unknown>[]
  t.match(status[0], { projection: 'accounts', checkpoint: Number, head: Number, lag: 0 }, 'positions are numbers')
  // An interrupted rebuild: killed once its shadow table is there, while it fills it.
  const shadowTables = () => shadowTablesOf(env)
  let killedMidway = false
  for (let attempt = 0; attempt < 5 && !killedMidway; attempt++) {
    const interrupted: ChildProcess = spawn(process.execPath, ['bin/shiplog.js', 'projections', 'rebuild', 'orders'], {
      env,
      stdio: 'ignore',
    })
    const exited = new Promise((r) => interrupted.on('exit', r))
    let running = true
    void exited.then(() => (running = false))
    while (running && (await shadowTables()).length === 0) await new Promise((r) => setTimeout(r, 2))
    interrupted.kill('SIGKILL')
    await exited
    killedMidway = (await shadowTables()).length > 0
  }
  t.ok(killedMidway, 'killed mid-rebuild: its shadow table is left behind')
  t.equal(shiplogCli(['projections', 'rebuild', 'orders'], env).status, 0, 'the next rebuild starts afresh')
  t.same(await shadowTables(), [], 'and leaves no shadow table')
  server = await spawnServer(env)
  t.teardown(() => server.kill('SIGKILL'))
  const page = await (await call(server.url, account.private_key, '/v2/orders?limit=100&order_number=R-7')).json()
  t.equal((page as { data: unknown[] }).data.length, 1, 'the live read model serves as before')
})

t.test('the CLI: console users, their password read from standard input, never printed', async (t) => {
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env, 'Acme')
  const users = (args: string[], input?: string) =>
    spawnSync(process.execPath, ['bin/shiplog.js', 'users', ...args], { env, encoding: 'utf8', input })
  const created = users(
    ['create', '--account', String(account.id), '--email', 'Sam@Shop.example', '--role', 'owner', '--password-stdin'],
    'a long passphrase\n',
  )
  t.equal(created.status, 0, created.stderr)
  t.match(JSON.parse(created.stdout), { account_id: account.id, email: 'sam@shop.example', role: 'owner' })
  t.notMatch(created.stdout, 'passphrase', 'the password is never printed')
  const again = users(
    ['create', '--account', String(account.id), '--email', 'sam@shop.example', '--password-stdin'],
    'another passphrase\n',
  )
  t.not(again.status, 0)
  t.match(again.stderr, 'already exists')
  const short = users(
    ['create', '--account', String(account.id), '--email', 'kim@shop.example', '--password-stdin'],
    'short\n',
  )
  t.not(short.status, 0)
  t.match(short.stderr, 'at least 12 characters')
  const role = users([
    'create',
    '--account',
    String(account.id),
    '--email',
    'kim@shop.example',
    '--role',
    'boss',
    '--password-stdin',
  ])
  t.not(role.status, 0)
  t.match(role.stderr, 'owner, member')
  const noAccount = users(
    ['create', '--account', '999999', '--email', 'kim@shop.example', '--password-stdin'],
    'a long passphrase\n',
  )
  t.not(noAccount.status, 0)
  t.match(noAccount.stderr, 'Account 999999 not found')

  const listed = users(['list', '--account', String(account.id)])
  t.equal(listed.status, 0, listed.stderr)
  const lines = listed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  t.same(
    lines.map((u) => [u.email, u.role]),
    [['sam@shop.example', 'owner']],
  )
  t.notMatch(listed.stdout, /password|scrypt/)
  t.equal(users(['reset-password', '--email', 'sam@shop.example', '--password-stdin'], 'a new passphrase!\n').status, 0)
  t.equal(users(['delete', '--email', 'sam@shop.example']).status, 0)
  t.equal(users(['list', '--account', String(account.id)]).stdout, '', 'deleted')
  t.match(users(['delete', '--email', 'sam@shop.example']).stderr, 'No console user has this e-mail')
})
