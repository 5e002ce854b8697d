/**
 * Where a decision takes the ids of what it creates. Deciders never make ids
 * themselves: the command brings a source (snowflake ids and random UUIDs in
 * service, a counter in tests), so a decision is repeatable given its command.
 */
export interface IdSource {
  /** A new integer resource id. */
  next(): number
  /** A new resource UUID. */
  uuid(): string
}
