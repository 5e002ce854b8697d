import { createWriteStream, existsSync, readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { Command, InvalidArgumentError } from 'commander'
import { allRoles, ConfigError, loadConfig, type Role } from '../shared/infra/config.ts'
import { embeddedFiles, openRuntime, type Runtime, StartupError } from '../shared/infra/runtime.ts'
import { isShiplogError } from '../shared/domain/errors.ts'
import { LANGUAGE_CODE, LANGUAGE_CODE_MESSAGE } from '../shared/domain/fields.ts'
import {
  hasNotifications,
  NOTIFICATION_LANGUAGE_MESSAGE,
  notificationLanguages,
} from '../shared/domain/notifications/languages.ts'
import { parseDateTime } from '../shared/domain/time.ts'
import { isCalendarDate } from '../shared/domain/delivery/calendar.ts'
import { eventTypes } from '../shared/domain/events/index.ts'
import { projections } from '../projectors/all-projections.ts'
import { exportEvents, exportEventsParquet } from './events.ts'
import { runBacktest } from './estimation.ts'
import { runDelayBacktest } from './delays.ts'
import { projectionStatus, rebuildProjections } from './projection-commands.ts'
import { createAccount, deleteAccount, listAccounts, rotateKeys } from '../commands/accounts/change-account.ts'
import { createUser, deleteUser, resetPassword } from '../commands/users/change-user.ts'
import { type ConsoleRole, consoleRoles } from '../shared/domain/events/user-events.ts'
import { listUsers, passwordFromStdin } from './users.ts'

const parseRoles = (value: string): Role[] => {
  const roles = value.split(',').map((r) => r.trim())
  const unknown = roles.filter((r) => !(allRoles as readonly string[]).includes(r))
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown role ${unknown.join(', ')}; roles are ${allRoles.join(', ')}`)
  return roles as Role[]
}

/**
 * Runs a command against the configured stores, quietly: its output is the
 * command's. Only a command that creates data may start an empty embedded
 * store; the others refuse, rather than read a data directory made by mistake.
 */
const withRuntime = async (work: (rt: Runtime) => Promise<void>, { creates = false } = {}) => {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' })
  const missing = embeddedFiles(config).filter((file) => !existsSync(file))
  if (!creates && missing.length > 0) {
    throw new InvalidArgumentError(
      `no shiplog data at ${resolve(config.DATA_DIR)} (missing ${missing.map((f) => basename(f)).join(', ')}): set DATA_DIR to the service's data directory`,
    )
  }
  const rt = await openRuntime(config)
  try {
    await work(rt)
  } finally {
    await rt.close()
  }
}

const parseTime = (value: string) => {
  const seconds = parseDateTime(value)
  if (seconds === undefined) throw new InvalidArgumentError('expected Unix seconds or an ISO 8601 datetime')
  return seconds * 1000
}
const parseLanguage = (value: string) => {
  if (!LANGUAGE_CODE.test(value)) throw new InvalidArgumentError(LANGUAGE_CODE_MESSAGE)
  if (!hasNotifications(value)) throw new InvalidArgumentError(NOTIFICATION_LANGUAGE_MESSAGE)
  return value
}
const parseDate = (value: string) => {
  if (!isCalendarDate(value)) throw new InvalidArgumentError('expected a date YYYY-MM-DD')
  return value
}
const parseExportFormat = (value: string) => {
  if (value !== 'ndjson' && value !== 'parquet') throw new InvalidArgumentError('expected ndjson or parquet')
  return value
}
const parseEventType = (value: string, previous: string[] = []) => {
  if (!(eventTypes as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`unknown event type ${value}; event types are ${eventTypes.join(', ')}`)
  }
  return [...previous, value]
}
const parseRole = (value: string) => {
  if (!(consoleRoles as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${consoleRoles.join(', ')}`)
  return value as ConsoleRole
}
const parseInteger = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected an integer')
  return Number(value)
}

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

/** The longest a stop may take once SIGTERM or SIGINT arrives (the README promises 5 s, a blocked turn included). */
const STOP_MS = 4_000

const program = new Command()
  .name('shiplog')
  .version(version)
  .description('Self-hostable, event-sourced shipment tracking for merchants')
  .showHelpAfterError()

program
  .command('serve')
  .description('run the service: all roles by default, or the ones named')
  .option('--roles <roles>', `comma-separated subset of ${allRoles.join(',')}`, parseRoles)
  .action(async (options: { roles?: Role[] }) => {
    // Loaded here: the HTTP server and the queues are a second of module loading
    // that the other commands (an operator's, a script's) do not need.
    const { startServer } = await import('../server/start.ts')
    const server = await startServer(loadConfig(), { roles: options.roles })
    const stop = async (signal: NodeJS.Signals) => {
      const { logger } = server.runtime
      // Whatever is down (Redis, a store), the process ends within STOP_MS: what is
      // stored is stored, and queued work resumes from the event log at the next start.
      setTimeout(() => {
        logger.warn(`stopping took over ${STOP_MS} ms; exiting anyway`)
        process.exit(1)
      }, STOP_MS).unref()
      await server.close()
      logger.info({ signal }, 'shiplog stopped')
      process.exit(0)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })

const accounts = program.command('accounts').description('manage merchant accounts')
accounts
  .command('create')
  .description('create an account and print its keys as JSON (shown only once)')
  .requiredOption('--name <name>', 'account name')
  .option(
    '--language <code>',
    `the customers' language when an order has none: ${notificationLanguages.join(', ')}`,
    parseLanguage,
    'en',
  )
  .action(async (options: { name: string; language: string }) => {
    return withRuntime(
      async (rt) => {
        process.stdout.write(`${JSON.stringify(await createAccount(rt, options.name, options.language))}\n`)
      },
      { creates: true },
    )
  })
accounts
  .command('list')
  .description('every account, as JSON lines: id, name, language, created and deleted (never a key)')
  .action(() =>
    withRuntime(async (rt) => {
      for (const account of await listAccounts(rt)) process.stdout.write(`${JSON.stringify(account)}\n`)
    }),
  )
accounts
  .command('rotate-keys')
  .description(
    'replace both keys of an account and print the new ones as JSON (shown only once); the old ones stop working',
  )
  .requiredOption('--id <id>', 'account id', parseInteger)
  .action((options: { id: number }) =>
    withRuntime(async (rt) => {
      process.stdout.write(`${JSON.stringify(await rotateKeys(rt, options.id))}\n`)
    }),
  )
accounts
  .command('delete')
  .description('delete an account: its keys stop working (its history stays in the event log)')
  .requiredOption('--id <id>', 'account id', parseInteger)
  .action((options: { id: number }) =>
    withRuntime(async (rt) => {
      await deleteAccount(rt, options.id)
      process.stdout.write(`${JSON.stringify({ id: options.id, deleted: true })}\n`)
    }),
  )

const projectionsCommand = program.command('projections').description('inspect and rebuild the read models')
projectionsCommand
  .command('status')
  .description("each projection's checkpoint and its lag behind the head of the log, as JSON")
  .action(() =>
    withRuntime(async (rt) => {
      process.stdout.write(`${JSON.stringify(await projectionStatus(rt), null, 2)}\n`)
    }),
  )
projectionsCommand
  .command('rebuild')
  .description('rebuild from position 0 into a fresh collection, swapped in atomically once caught up')
  .argument('[name]', `one of ${projections.map((p) => p.name).join(', ')}`)
  .option('--all', 'every projection')
  .action((name: string | undefined, options: { all?: boolean }) => {
    if (!name && !options.all) throw new InvalidArgumentError('name a projection or pass --all')
    return withRuntime((rt) => rebuildProjections(rt, options.all ? projections.map((p) => p.name) : [name!]))
  })

program
  .command('events')
  .description('the event history')
  .command('export')
  .description('events oldest first, streamed: NDJSON on stdout, or a Parquet file (--format parquet --output FILE)')
  .option('--format <format>', 'ndjson (the default) or parquet', parseExportFormat, 'ndjson')
  .option('--output <file>', 'the file to write (required for parquet; ndjson goes to stdout without it)')
  .option('--stream <stream>', 'one stream, or a prefix ending in * (order-*)')
  .option('--type <type...>', 'only these event types', parseEventType)
  .option('--since <time>', 'recorded at or after (Unix seconds or ISO 8601)', parseTime)
  .option('--until <time>', 'recorded before (Unix seconds or ISO 8601)', parseTime)
  .option('--account <id>', 'only this account', parseInteger)
  .action(
    (options: {
      stream?: string
      type?: string[]
      since?: number
      until?: number
      account?: number
      format: 'ndjson' | 'parquet'
      output?: string
    }) =>
      withRuntime(async (rt) => {
        if (options.format === 'parquet' && !options.output)
          throw new InvalidArgumentError('--format parquet needs --output <file>')
        const filter = {
          stream: options.stream,
          types: options.type,
          since: options.since,
          until: options.until,
          account: options.account,
        }
        if (options.format === 'parquet' && options.output) {
          const written = await exportEventsParquet(rt, filter, options.output)
          process.stderr.write(`${written} events written to ${options.output}\n`)
          return
        }
        if (!options.output) return void (await exportEvents(rt, filter, process.stdout))
        const file = createWriteStream(options.output)
        await exportEvents(rt, filter, file)
        await new Promise((resolve, reject) => file.end(resolve).once('error', reject))
      }),
  )

program
  .command('estimation')
  .description('delivery date estimation')
  .command('backtest')
  .description(
    'replays the history: each parcel delivered after the date gets the estimate it would have had when it shipped; prints per carrier service how often it came true, beside the configured transit days',
  )
  .requiredOption('--since <date>', 'score the parcels delivered after this date (YYYY-MM-DD)', parseDate)
  .option('--account <id>', 'only this account', parseInteger)
  .action((options: { since: string; account?: number }) =>
    withRuntime((rt) => runBacktest(rt, options, process.stdout)),
  )

const users = program.command('users').description("manage the console's users")
users
  .command('create')
  .description('create a console user of an account, the password read from standard input')
  .requiredOption('--account <id>', 'the account the user belongs to', parseInteger)
  .requiredOption('--email <email>', 'the address the user signs in with')
  .option('--role <role>', 'owner (also manages keys and users) or member', parseRole, 'member' as ConsoleRole)
  .requiredOption('--password-stdin', 'read the password from standard input (never from the command line)')
  .action((options: { account: number; email: string; role: ConsoleRole }) =>
    withRuntime(async (rt) => {
      const password = await passwordFromStdin()
      const user = await createUser(rt, {
        accountId: options.account,
        email: options.email,
        role: options.role,
        password,
      })
      process.stdout.write(`${JSON.stringify(user)}\n`)
    }),
  )
users
  .command('list')
  .description("an account's console users as JSON lines, never a password")
  .requiredOption('--account <id>', 'the account', parseInteger)
  .action((options: { account: number }) => withRuntime((rt) => listUsers(rt, options.account, process.stdout)))
users
  .command('delete')
  .description('delete a console user: their sessions end at once')
  .requiredOption('--email <email>', "the user's address")
  .action((options: { email: string }) => withRuntime((rt) => deleteUser(rt, options.email)))
users
  .command('reset-password')
  .description("set a console user's password, read from standard input; their sessions end")
  .requiredOption('--email <email>', "the user's address")
  .requiredOption('--password-stdin', 'read the password from standard input')
  .action((options: { email: string }) =>
    withRuntime(async (rt) => resetPassword(rt, options.email, await passwordFromStdin())),
  )

program
  .command('delays')
  .description('late, stalled and at-risk parcels')
  .command('backtest')
  .description(
    'replays the history: each parcel delivered after the date is looked at every morning of its journey as the sweep would have; prints per carrier service the late parcels, the share flagged a day and at all before their promise passed, the median lead and the share of false flags',
  )
  .requiredOption('--since <date>', 'score the parcels delivered after this date (YYYY-MM-DD)', parseDate)
  .option('--account <id>', 'only this account', parseInteger)
  .action((options: { since: string; account?: number }) =>
    withRuntime((rt) => runDelayBacktest(rt, options, process.stdout)),
  )

try {
  await program.parseAsync(process.argv)
} catch (error) {
  if (error instanceof ConfigError || error instanceof InvalidArgumentError) {
    process.stderr.write(`${error.message}\n`)
    process.exit(2)
  }
  // A refusal the command can name (an unknown account, a port taken) is one line, not a stack trace.
  if (isShiplogError(error) || error instanceof StartupError) {
    process.stderr.write(`shiplog: ${error.message}\n`)
    process.exit(1)
  }
  throw error
}
