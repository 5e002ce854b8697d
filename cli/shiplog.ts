import { Command, InvalidArgumentError } from 'commander'
import { allRoles, ConfigError, loadConfig, type Role } from '../shared/config.ts'
import { openRuntime } from '../shared/runtime.ts'
import { createAccountCommand } from './accounts.ts'
import { startServer } from './serve.ts'

const parseRoles = (value: string): Role[] => {
  const roles = value.split(',').map((r) => r.trim())
  const unknown = roles.filter((r) => !(allRoles as readonly string[]).includes(r))
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown role ${unknown.join(', ')}; roles are ${allRoles.join(', ')}`)
  return roles as Role[]
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
  .action(async (options: { name: string }) => {
    const rt = await openRuntime(loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }))
    try {
      process.stdout.write(`${JSON.stringify(await createAccountCommand(rt, options.name))}\n`)
    } finally {
      await rt.close()
    }
  })

try {
  await program.parseAsync(process.argv)
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`)
    process.exit(2)
  }
  throw error
}
