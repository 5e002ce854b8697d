/**
 * Remembers the last `max` results of a pure function of one string. Merchants
 * send the same customers and tracking numbers again on every update, and the
 * phone and carrier libraries are costly per call.
 */
export function memoize<R>(fn: (key: string) => R, max = 10_000): (key: string) => R {
  const cache = new Map<string, R>()
  return (key) => {
    if (cache.has(key)) return cache.get(key)!
    const value = fn(key)
    // Map keeps insertion order: the oldest entry goes first.
    if (cache.size >= max) cache.delete(cache.keys().next().value!)
    cache.set(key, value)
    return value
  }
}
