import { validationError } from '../../shared/domain/errors.ts'

/**
 * The set of expanded paths of a request. A path also expands every level
 * above it: `fulfillments.trackers.carrier` expands `fulfillments` and
 * `fulfillments.trackers` too.
 */
export class Expansion {
  private constructor(
    private readonly paths: ReadonlySet<string>,
    /** Every allowed path is expanded: the whole resource, as the read model keeps it pre-rendered. */
    readonly isFull = false,
  ) {}

  static none = new Expansion(new Set())

  static full(allowed: readonly string[]): Expansion {
    return Expansion.parse([...allowed], allowed)
  }

  /** Reads `expand[]`: a listed path or any prefix of one, as clients send them; an unknown path is a 400 naming it. */
  static parse(requested: string | string[] | undefined, allowed: readonly string[]): Expansion {
    const list = requested === undefined ? [] : Array.isArray(requested) ? requested : [requested]
    const unknown = list.filter((p) => !allowed.some((a) => a === p || a.startsWith(`${p}.`)))
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
    return new Expansion(
      paths,
      allowed.every((p) => paths.has(p)),
    )
  }

  has(path: string): boolean {
    return this.paths.has(path)
  }
}

/** The nine expand[] paths of GET /v2/orders. */
export const orderExpandPaths = [
  'shipping_address',
  'line_items',
  'notifications.notification_payloads',
  'notifications.notification_type',
  'fulfillments.trackers.line_items',
  'fulfillments.trackers.events.address',
  'fulfillments.trackers.carrier',
  'fulfillments.shipping_address',
  'fulfillments.line_items',
] as const

/** The expand[] paths of GET /v2/trackers. */
export const trackerExpandPaths = [
  'carrier',
  'events',
  'events.address',
  'line_items',
  'notifications.notification_payloads',
  'notifications.notification_type',
] as const
