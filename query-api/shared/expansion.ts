import { validationError } from '../../shared/errors.ts'

/**
 * The set of expanded paths of a request. A path also expands every level
 * above it: `fulfillments.trackers.carrier` expands `fulfillments` and
 * `fulfillments.trackers` too.
 */
export class Expansion {
  private constructor(private readonly paths: ReadonlySet<string>) {}

  static none = new Expansion(new Set())

  /** Reads `expand[]`; an unknown path is a 400 naming it. */
  static parse(requested: string | string[] | undefined, allowed: readonly string[]): Expansion {
    const list = requested === undefined ? [] : Array.isArray(requested) ? requested : [requested]
    const unknown = list.filter((p) => !allowed.includes(p))
    if (unknown.length > 0) {
      throw validationError(`Unknown expand[] path: ${unknown.join(', ')}. Allowed: ${allowed.join(', ')}`, {
        'expand[]': `unknown path ${unknown.join(', ')}`,
      })
    }
    const paths = new Set<string>()
    for (const path of list) {
      const parts = path.split('.')
      for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('.'))
    }
    return new Expansion(paths)
  }

  has(path: string): boolean {
    return this.paths.has(path)
  }
}
