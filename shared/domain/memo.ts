import { LRUCache } from 'lru-cache'

/**
 * Remembers the last `max` results of a pure function of one string. Merchants
 * send the same customers and tracking numbers again on every update, and the
 * phone and carrier libraries are costly per call. lru-cache evicts in constant
 * time: a Map dropping its oldest key scans past every key deleted before it,
 * which cost more than the phone library's own parse.
 */
export function memoize<R>(fn: (key: string) => R, max = 10_000): (key: string) => R {
  // Boxed: a result may be undefined or null, which lru-cache does not store.
  const cache = new LRUCache<string, { value: R }>({ max })
  return (key) => {
    const hit = cache.get(key)
    if (hit) return hit.value
    const value = fn(key)
    cache.set(key, { value })
    return value
  }
}
