import { createHash } from 'node:crypto'
import ipaddr from 'ipaddr.js'
import type { Redis } from 'ioredis'
import { LRUCache } from 'lru-cache'

/*
 * Counts of attempts in fixed windows, shared by every process through Redis
 * (a guess spread over several processes is still counted once), for the
 * refusals that stop guessing: tracking page lookups, console sign-ins. When
 * Redis does not answer at once, this process counts alone until it does:
 * a limit is never lifted, and a page never waits on Redis.
 */

export interface AttemptWindow {
  /** Attempts counted under the key in its window so far. */
  count: number
  /** Seconds until the window ends and the count starts over. */
  retryAfter: number
}

export interface AttemptLimits {
  /** The key's window now, without counting. */
  peek(key: string, windowSeconds: number): Promise<AttemptWindow>
  /** Counts one attempt under the key; its window after it. */
  add(key: string, windowSeconds: number): Promise<AttemptWindow>
}

/** INCR with the window's expiry set by the first attempt; the count and the milliseconds left. */
const ADD = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`

/** A key as stored: its purpose in the clear, what it counts hashed (an address, an order number, an e-mail). */
const storedKey = (prefix: string, key: string) => {
  const split = key.indexOf(':')
  const purpose = split < 0 ? '' : key.slice(0, split)
  return `${prefix}:limits:${purpose}:${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`
}

/**
 * Attempt counts under `prefix` (the queue name, which the processes of one
 * layout share), on Redis when given and answering, else in this process.
 */
export function createAttemptLimits(redis: Redis | undefined, prefix: string, nowMs: () => number): AttemptLimits {
  const local = new LRUCache<string, { count: number; endsAt: number }>({ max: 100_000 })
  const localWindow = (key: string, windowSeconds: number, adding: boolean): AttemptWindow => {
    const now = nowMs()
    let entry = local.get(key)
    if (!entry || entry.endsAt <= now) entry = { count: 0, endsAt: now + windowSeconds * 1000 }
    if (adding) entry = { ...entry, count: entry.count + 1 }
    local.set(key, entry)
    return { count: entry.count, retryAfter: Math.max(1, Math.ceil((entry.endsAt - now) / 1000)) }
  }
  const shared = async <T>(command: (redis: Redis) => Promise<T>): Promise<T | undefined> => {
    if (redis?.status !== 'ready') return undefined
    try {
      return await command(redis)
    } catch {
      return undefined
    }
  }
  const window = (count: number, pttl: number, windowSeconds: number): AttemptWindow => ({
    count,
    retryAfter: Math.max(1, Math.ceil((pttl > 0 ? pttl : windowSeconds * 1000) / 1000)),
  })
  return {
    async peek(key, windowSeconds) {
      const stored = storedKey(prefix, key)
      const found = await shared(async (r) => {
        const [[, count], [, pttl]] = (await r.multi().get(stored).pttl(stored).exec()) as [
          [unknown, string | null],
          [unknown, number],
        ]
        return window(Number(count ?? 0), pttl, windowSeconds)
      })
      // Redis away: what this process counted, which it also counts while Redis answers.
      const mine = localWindow(key, windowSeconds, false)
      return found && found.count >= mine.count ? found : mine
    },
    async add(key, windowSeconds) {
      const stored = storedKey(prefix, key)
      const mine = localWindow(key, windowSeconds, true)
      const found = await shared(async (r) => {
        const [count, pttl] = (await r.eval(ADD, 1, stored, String(windowSeconds * 1000))) as [number, number]
        return window(count, pttl, windowSeconds)
      })
      return found && found.count >= mine.count ? found : mine
    },
  }
}

/**
 * The client a limit counts: its address, an IPv6 one by its /64, since one
 * subscriber is handed a whole /64 and can pick any address of it.
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`
}
