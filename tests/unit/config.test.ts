import t from 'tap'
import { loadConfig } from '../../shared/infra/config.ts'

t.test('defaults make the one-machine layout', async (t) => {
  const config = loadConfig({})
  t.equal(config.PORT, 3000)
  t.equal(config.DATA_DIR, './data')
  t.equal(config.EVENTSTORE_URL, undefined)
  t.equal(config.MONGODB_URL, undefined)
  t.same(config.ROLES, ['command', 'query', 'projector', 'worker'])
})

t.test('a bad value stops the start with a message naming the variable', async (t) => {
  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['NODE_ID', '40'],
    ['REDIS_URL', 'http://x'],
    ['MONGODB_URL', 'nope'],
    ['DATABASE_URL', 'mysql://db/shiplog'],
    ['ROLES', 'command,cook'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'maybe'],
    ['TRUST_PROXY', '10.0.0.1,gateway'],
    ['SHIPLOG_DHL_RATE_LIMIT', 'fast'],
    ['SHIPLOG_LAPOSTE_RATE_LIMIT', '0'],
    ['SHIPLOG_LAPOSTE_API_URL', 'ftp://api.laposte.fr'],
    ['SHIPLOG_POLL_INTERVAL', '0'],
    ['SMTP_URL', 'mail.example.com'],
    ['SHIPLOG_SECRET_KEY', 'too-short'],
    ['SHIPLOG_METRICS_TOKEN', 'short'],
    ['SHIPLOG_WEBHOOK_ENDPOINTS_MAX', '0'],
    ['ORDER_CACHE_MB', '0'],
    ['ORDER_CACHE_MB', '2000000'],
  ] as const) {
    t.throws(() => loadConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(`${name} must be`) }, name)
  }
})

t.test('TRUST_PROXY takes true, false, or addresses and ranges of the gateway', async (t) => {
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY, true)
  t.equal(loadConfig({}).TRUST_PROXY, false)
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.2, 172.18.0.0/16' }).TRUST_PROXY, '10.0.0.2, 172.18.0.0/16')
  t.throws(() => loadConfig({ SHIPLOG_DHL_RATE_LIMIT: 'fast' }), {
    message: /SHIPLOG_DHL_RATE_LIMIT must be a whole number of 1 or more, not "fast"/,
  })
})

t.test('each settings error is one line: the variable, what it must be, what was given', async (t) => {
  const message = (env: Record<string, string>) => {
    try {
      loadConfig(env)
    } catch (error) {
      return (error as Error).message
    }
    return 'accepted'
  }
  t.equal(message({ PORT: '99999' }), 'Invalid configuration: PORT must be a whole number from 0 to 65535, not "99999"')
  t.equal(message({ PORT: '80.5' }), 'Invalid configuration: PORT must be a whole number from 0 to 65535, not "80.5"')
  t.equal(
    message({ LOG_LEVEL: 'loud' }),
    'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
  )
  t.equal(
    message({ ROLES: 'command,cook' }),
    'Invalid configuration: ROLES must be one of command, query, projector, worker, separated by commas, not "command,cook"',
  )
  t.equal(
    message({ TRUST_PROXY: 'maybe' }),
    'Invalid configuration: TRUST_PROXY must be true, false, or addresses and CIDR ranges separated by commas, such as 10.0.0.2,172.18.0.0/16, not "maybe"',
  )
  t.equal(
    message({ SMTP_URL: 'mail.example.com' }),
    'Invalid configuration: SMTP_URL must be a URL starting with smtp:// or smtps://, not "mail.example.com"',
  )
  t.equal(
    message({ SHIPLOG_METRICS_TOKEN: 'hunter2' }),
    'Invalid configuration: SHIPLOG_METRICS_TOKEN must be at least 16 characters, not a value of 7 characters',
    'a secret is never echoed',
  )
  t.equal(
    message({ SHIPLOG_UPS_CLIENT_SECRET: 'x' }),
    'Invalid configuration: SHIPLOG_UPS_CLIENT_ID must be set with SHIPLOG_UPS_CLIENT_SECRET (both or neither), not unset',
  )
  const two = message({ PORT: '-1', NODE_ID: '40' }).split('\n')
  t.same(two, [
    'Invalid configuration: PORT must be a whole number from 0 to 65535, not "-1"',
    'Invalid configuration: NODE_ID must be a whole number from 0 to 31, not "40"',
  ])
})
