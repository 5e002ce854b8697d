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
    t.throws(() => loadConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(`${name}:`) }, name)
  }
})

t.test('TRUST_PROXY takes true, false, or addresses and ranges of the gateway', async (t) => {
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY, true)
  t.equal(loadConfig({}).TRUST_PROXY, false)
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.2, 172.18.0.0/16' }).TRUST_PROXY, '10.0.0.2, 172.18.0.0/16')
  t.throws(() => loadConfig({ SHIPLOG_DHL_RATE_LIMIT: 'fast' }), {
    message: /SHIPLOG_DHL_RATE_LIMIT: must be a number, not "fast"/,
  })
})
