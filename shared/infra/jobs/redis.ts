import { Redis } from 'ioredis'
import type { Logger } from 'pino'

/**
 * A Redis connection as BullMQ needs it: commands wait for a reconnect instead
 * of failing, and connection errors are logged (ioredis reconnects by itself).
 */
export function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false, enableOfflineQueue: true })
  redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error; reconnecting'))
  return redis
}
