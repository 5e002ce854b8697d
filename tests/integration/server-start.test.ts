import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startServer } from '../../server/start.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import t from 'tap'
import { storesOnPostgres } from '../support/postgres.ts'
import { serviceEnvironment, spawnServer } from '../support/process.ts'
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

/*
 * Test files run side by side, and a port found free can be another test's
 * receiver by the time a service binds it: the service moves to another port,
 * and what holds the port is sent nothing (a receiver would count the
 * service's health checks as webhooks).
 */
t.test('a service whose port another test holds moves to another, sending it nothing', async (t) => {
  const requests: string[] = []
  const holder = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    response.end()
  }).listen(0, '127.0.0.1')
  await once(holder, 'listening')
  t.teardown(() => holder.close())
  const taken = String((holder.address() as AddressInfo).port)
  const env = await serviceEnvironment(t)
  const service = await spawnServer({ ...env, PORT: taken })
  t.teardown(() => service.kill('SIGKILL'))
  t.not(new URL(service.url).port, taken)
  t.equal((await fetch(`${service.url}/healthz`)).status, 200)
  t.same(requests, [], 'what holds the port got no request')
})
