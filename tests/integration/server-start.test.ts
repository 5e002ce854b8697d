import { randomUUID } from 'node:crypto'
import { startServer } from '../../server/start.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import t from 'tap'
import { storesOnPostgres } from '../support/postgres.ts'
import { startTestServer } from '../support/server.ts'
import { tempDir } from '../support/temp.ts'

t.test('a server that cannot listen fails to start and leaves nothing running', async (t) => {
  const first = await startTestServer(t)
  const port = new URL(first.url).port
  const dataDir = tempDir(t, 'shiplog-test-')
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: port,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    QUEUE_NAME: `test-${randomUUID()}`,
    ...storesOnPostgres(),
  })
  await t.rejects(startServer(config), { name: 'StartupError', message: `port ${port} is already in use: set PORT` })
  // Its stores were closed, its projector and checkpointer threads stopped: the
  // same data folder opens again at once (and this file ends, with no thread left behind).
  const again = await startServer({ ...config, PORT: 0 })
  t.equal((await fetch(`${again.url}/healthz`)).status, 200)
  await again.close()
})
