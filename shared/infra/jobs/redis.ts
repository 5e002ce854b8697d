import { Redis } from 'ioredis'
import type { Logger } from 'pino'

/**
 * A Redis connection as BullMQ needs it: commands wait for a reconnect
 * instead of failing (or, `failFast`, fail at once), and ioredis reconnects by itself. That Redis went away,
 * and that it came back, is logged once each, not at every retry.
 */
export function connectRedis(url: string, logger: Logger, name = 'queue', options: { failFast?: boolean } = {}): Redis {
  const redis = new Redis(
    url,
    options.failFast
      ? // A command that cannot be answered now fails at once: its caller has a fallback and must not wait.
        { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: 500 }
      : { maxRetriesPerRequest: null, lazyConnect: false, enableOfflineQueue: true },
  )
  let down = false
  const where = url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@')
  redis.on('error', (error: Error) => {
    if (down) return
    down = true
    logger.warn(
      { redis: where, connection: name, reason: error.message },
      options.failFast
        ? 'Redis is unreachable; each process counts attempts alone until it is back'
        : 'Redis is unreachable; jobs wait until it is back',
    )
  })
  redis.on('ready', () => {
    if (!down) return
    down = false
    logger.info({ redis: where, connection: name }, 'Redis is reachable again')
  })
  return redis
}

/** Whether a connection can take commands now (never waits). */
export const isRedisReady = (redis: Redis) => redis.status === 'ready'

/** An error that only says the connection to Redis went (connectRedis already said so, once). */
const lostConnection = (error: { code?: string; message?: string }) =>
  ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(error.code ?? '') ||
  /Connection is closed/.test(error.message ?? '')

/**
 * A BullMQ worker's error logger: its faults are logged, a lost connection
 * is not (it may surface before the connection's status says so, and Redis
 * going away is logged once by connectRedis).
 */
export const workerErrors =
  (connection: Redis, log: Logger, message: string, context: Record<string, unknown> = {}) =>
  (error: Error & { code?: string }) => {
    if (isRedisReady(connection) && !lostConnection(error)) log.error({ err: error, ...context }, message)
  }
