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
    ['ROLES', 'command,cook'],
    ['LOG_LEVEL', 'loud'],
  ] as const) {
    t.throws(() => loadConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(`${name}:`) }, name)
  }
})
