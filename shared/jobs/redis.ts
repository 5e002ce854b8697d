import { Redis } from 'ioredis'

/** A Redis connection as BullMQ needs it: commands wait for a reconnect instead of failing. */
export function connectRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false, enableOfflineQueue: true })
}
