import type { Redis } from 'ioredis'
import { carrierCodesOf, type TrackingApi } from '../../domain/carriers/tracking-apis.ts'
import type { ConfiguredCarrierApi } from './apis.ts'
import { utcDayOf } from '../../domain/time.ts'

/*
 * What each carrier API has been asked today, shared by every process through
 * Redis: the day's budget is taken one request at a time, and the last error
 * is kept for GET /v2/carrier_apis. Days are UTC. A Redis that comes back
 * empty forgets the day's count: the budget then starts again, which can spend
 * a day's budget twice but never stops polling for good.
 */

export interface CarrierApiDay {
  requests: number
  lastError: { message: string; at: number } | null
}

export interface CarrierLedger {
  /** Takes one request from today's budget (null: none set); false once it is spent. */
  take(api: TrackingApi, perDay: number | null): Promise<boolean>
  /** An answer that went wrong, kept as the API's last error. */
  fault(api: TrackingApi, message: string): Promise<void>
  today(api: TrackingApi): Promise<CarrierApiDay>
}

export function redisLedger(redis: Redis, prefix: string, now: () => number = Date.now): CarrierLedger {
  const countKey = (api: TrackingApi) => `${prefix}:carrier-api:${api}:${utcDayOf(now() / 1000)}`
  const errorKey = (api: TrackingApi) => `${prefix}:carrier-api:${api}:last-error`
  return {
    async take(api, perDay) {
      const key = countKey(api)
      const [[, n]] = (await redis
        .multi()
        .incr(key)
        .expire(key, 2 * 86_400)
        .exec()) as [[unknown, number]]
      if (perDay === null || n <= perDay) return true
      await redis.decr(key)
      return false
    },
    async fault(api, message) {
      await redis.set(errorKey(api), JSON.stringify({ message, at: Math.floor(now() / 1000) }), 'EX', 7 * 86_400)
    },
    async today(api) {
      const [requests, lastError] = await redis.mget(countKey(api), errorKey(api))
      return { requests: Number(requests ?? 0), lastError: lastError ? JSON.parse(lastError) : null }
    },
  }
}

/** How long the figures of a day may take before they are given without them. */
const REDIS_WAIT_MS = 500

/** Each carrier API as GET /v2/carrier_apis and the console show it: configured or not, today's requests, budget left, last error. */
export const carrierApiFigures = (settings: readonly ConfiguredCarrierApi[], ledger: CarrierLedger) =>
  Promise.all(
    settings.map(async (s) => {
      // The ledger lives in Redis: without it the figures still say what is configured.
      const today = await Promise.race([
        ledger.today(s.name).catch(() => undefined),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), REDIS_WAIT_MS)),
      ])
      const requests = today?.requests ?? null
      return {
        object: 'carrier_api' as const,
        api: s.name,
        carrier_codes: carrierCodesOf(s.name),
        configured: s.adapter !== undefined,
        requests_per_second: s.perSecond,
        daily_budget: s.perDay,
        requests_today: requests,
        budget_left: s.perDay === null || requests === null ? null : Math.max(0, s.perDay - requests),
        last_error: today?.lastError ?? null,
      }
    }),
  )
