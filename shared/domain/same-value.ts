/** Deep equality of JSON-like values (objects, arrays, scalars), for telling a real change from a repeat. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const aKeys = Object.keys(a)
  if (aKeys.length !== Object.keys(b).length) return false
  return aKeys.every(
    (k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  )
}

/** The proposed values that differ from the current ones; undefined when none do. */
export function changed<C extends object>(current: object, proposed: C): C | undefined {
  let out: Record<string, unknown> | undefined
  for (const key in proposed) {
    const value = proposed[key]
    if (value === undefined) continue
    const was = (current as Record<string, unknown>)[key]
    // Most values are strings or numbers: compared at once, objects in depth.
    if (was === value || (typeof value === 'object' && value !== null && sameValue(was, value))) continue
    out ??= {}
    out[key] = value
  }
  return out as C | undefined
}
