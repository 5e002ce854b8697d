import { LRUCache } from 'lru-cache'

/** A memoized function of one string, and a way to tell it a result learned elsewhere. */
export interface Memoized<R> {
  (key: string): R
  /** Stores `value` as the result for `key`, as if the function had returned it. */
  remember(key: string, value: R): void
}

/**
 * Remembers the last `max` results of a pure function of one string. Merchants
 * send the same customers and tracking numbers again on every update, and the
 * phone and carrier libraries are costly per call. lru-cache evicts in constant
 * time: a Map dropping its oldest key scans past every key deleted before it,
 * which cost more than the phone library's own parse.
 */
export function memoize<R>(fn: (key: string) => R, max = 10_000): Memoized<R> {
  // Boxed: a result may be undefined or null, which lru-cache does not store.
  const cache = new LRUCache<string, { value: R }>({ max })
  const memoized = (key: string) => {
    const hit = cache.get(key)
    if (hit) return hit.value
    const value = fn(key)
    cache.set(key, { value })
    return value
  }
  memoized.remember = (key: string, value: R) => {
    cache.set(key, { value })
  }
  return memoized
}
