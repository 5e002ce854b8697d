import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import type { Test } from 'tap'
import { tempDir } from './temp.ts'

/*
 * A Redis server of a test's own on a port of its own, so a test that stops
 * it never stops the others': started and waited for until it answers PING,
 * killed (SIGKILL, as a crash) and waited for until it is gone, started
 * again empty on the same port.
 */

const answersPing = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
    socket.on('data', (d) => {
      socket.destroy()
      resolve(d.toString().startsWith('+PONG'))
    })
    socket.on('error', () => resolve(false))
  })

export interface TestRedis {
  url: string
  /** Kills it, as a crash would, and waits until it is gone. */
  kill(): Promise<void>
  /** Starts it again, empty, on the same port, and waits until it answers. */
  start(): Promise<void>
  /** An outage: killed, away for `downMs`, started again empty. */
  restart(downMs: number): Promise<void>
}

export async function redisOn(t: Test, port: number): Promise<TestRedis> {
  const dir = tempDir(t, 'shiplog-redis-')
  let current: ChildProcess | undefined
  const redis: TestRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      current = spawn(
        process.env.REDIS_SERVER_BIN ?? 'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      )
      for (let i = 0; i < 200; i++) {
        if (await answersPing(port)) return
        await new Promise((r) => setTimeout(r, 25))
      }
      throw new Error(`redis-server on port ${port} did not answer PING`)
    },
    async kill() {
      const child = current
      current = undefined
      if (!child || child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await once(child, 'exit')
    },
    async restart(downMs) {
      await redis.kill()
      await new Promise((r) => setTimeout(r, downMs))
      await redis.start()
    },
  }
  await redis.start()
  t.teardown(() => redis.kill())
  return redis
}
