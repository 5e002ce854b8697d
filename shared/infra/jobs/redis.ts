import { Redis } from 'ioredis'
import type { Logger } from 'pino'

/**
 * A Redis connection as BullMQ needs it: commands wait for a reconnect
 * instead of failing, and ioredis reconnects by itself. That Redis went away,
 * and that it came back, is logged once each, not at every retry.
 */
export function connectRedis(url: string, logger: Logger, name = 'queue'): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false, enableOfflineQueue: true })
  let down = false
  const where = url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@')
  redis.on('error', (error: Error) => {
    if (down) return
    down = true
    logger.warn(
      { redis: where, connection: name, reason: error.message },
      'Redis is unreachable; jobs wait until it is back',
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
