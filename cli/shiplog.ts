import { Command, InvalidArgumentError } from 'commander'
import { allRoles, ConfigError, loadConfig, type Role } from '../shared/infra/config.ts'
import { openRuntime, type Runtime } from '../shared/infra/runtime.ts'
import { isShiplogError } from '../shared/domain/errors.ts'
import { LANGUAGE_CODE, LANGUAGE_CODE_MESSAGE } from '../shared/domain/fields.ts'
import { parseDateTime } from '../shared/domain/time.ts'
import { projections } from '../projectors/projections.ts'
import { exportEvents } from './events.ts'
import { projectionStatus, rebuildProjections } from './projections.ts'
import { createAccount, deleteAccount, rotateKeys } from '../command-api/accounts/account.ts'
import { startServer } from '../server/start.ts'

const parseRoles = (value: string): Role[] => {
  const roles = value.split(',').map((r) => r.trim())
  const unknown = roles.filter((r) => !(allRoles as readonly string[]).includes(r))
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown role ${unknown.join(', ')}; roles are ${allRoles.join(', ')}`)
  return roles as Role[]
}

/** Runs a command against the configured stores, quietly: its output is the command's. */
const withRuntime = async (work: (rt: Runtime) => Promise<void>) => {
  const rt = await openRuntime(loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }))
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
  return value
}
const parseInteger = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected an integer')
  return Number(value)
}

const program = new Command()
  .name('shiplog')
  .description('Self-hostable, event-sourced shipment tracking for merchants')
  .showHelpAfterError()

program
  .command('serve')
  .description('run the service: all roles by default, or the ones named')
  .option('--roles <roles>', `comma-separated subset of ${allRoles.join(',')}`, parseRoles)
  .action(async (options: { roles?: Role[] }) => {
    const server = await startServer(loadConfig(), { roles: options.roles })
    const stop = async () => {
      await server.close()
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
  .option('--language <code>', "the customers' language when an order has none (ISO 639-1)", parseLanguage, 'en')
  .action(async (options: { name: string; language: string }) => {
    return withRuntime(async (rt) => {
      process.stdout.write(`${JSON.stringify(await createAccount(rt, options.name, options.language))}\n`)
    })
  })
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
  .description('events as NDJSON on stdout, oldest first, streamed')
  .option('--stream <stream>', 'one stream, or a prefix ending in * (order-*)')
  .option('--type <type...>', 'only these event types')
  .option('--since <time>', 'recorded at or after (Unix seconds or ISO 8601)', parseTime)
  .option('--until <time>', 'recorded before (Unix seconds or ISO 8601)', parseTime)
  .option('--account <id>', 'only this account', parseInteger)
  .action((options: { stream?: string; type?: string[]; since?: number; until?: number; account?: number }) =>
    withRuntime(async (rt) => {
      await exportEvents(
        rt,
        {
          stream: options.stream,
          types: options.type,
          since: options.since,
          until: options.until,
          account: options.account,
        },
        process.stdout,
      )
    }),
  )

try {
  await program.parseAsync(process.argv)
} catch (error) {
  if (error instanceof ConfigError || error instanceof InvalidArgumentError) {
    process.stderr.write(`${error.message}\n`)
    process.exit(2)
  }
  // A refusal the command can name (an unknown account, say) is one line, not a stack trace.
  if (isShiplogError(error)) {
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
  throw error
}
