import { randomFillSync, randomUUID } from 'node:crypto'
import type { IdSource } from '../domain/ids.ts'

/**
 * Resource ids: 53-bit integers, time-ordered, unique across writers without
 * coordination (snowflake layout). They are allocated on the write side and
 * recorded in events, so a replay rebuilds exactly the same ids, and they stay
 * below 2^53 so every JSON client reads them exactly.
 *
 *   41 bits milliseconds since EPOCH | 5 bits node | 7 bits sequence
 */
export const EPOCH_MS = Date.UTC(2025, 0, 1)
const NODE_BITS = 5
const SEQUENCE_BITS = 7
export const MAX_NODE = 2 ** NODE_BITS - 1
const SEQUENCES = 2 ** SEQUENCE_BITS

/** The service's id source: snowflake ids and random UUIDs. */
export type IdGenerator = IdSource

/**
 * A clock that steps backwards, or a burst above 128 ids per millisecond, makes
 * the generator run on a logical millisecond ahead of the wall clock instead of
 * waiting: ids stay unique and increasing, and the clock catches up later.
 */
export function createIdGenerator(node: number, nowMs: () => number = Date.now): IdGenerator {
  if (!Number.isInteger(node) || node < 0 || node > MAX_NODE) {
    throw new RangeError(`node must be an integer in 0..${MAX_NODE}, got ${node}`)
  }
  let lastMs = -1
  let sequence = 0
  return {
    next() {
      const ms = Math.max(nowMs() - EPOCH_MS, 0)
      if (ms > lastMs) {
        lastMs = ms
        sequence = 0
      } else if (++sequence === SEQUENCES) {
        lastMs += 1
        sequence = 0
      }
      return (lastMs * 2 ** NODE_BITS + node) * SEQUENCES + sequence
    },
    uuid: randomUUID,
  }
}

/** The millisecond an id was allocated in (for diagnostics). */
export const idTime = (id: number): Date => new Date(Math.floor(id / 2 ** (NODE_BITS + SEQUENCE_BITS)) + EPOCH_MS)

/** Random bytes drawn 4 KiB at a time: one system call for 256 event ids. */
const pool = Buffer.alloc(4096)
let poolOffset = pool.length

/**
 * Event ids: RFC 9562 UUIDv7, time-ordered, so the unique index on event ids
 * grows at its end instead of at random places (KurrentDB takes any UUID).
 */
export function eventId(nowMs: number = Date.now()): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 16)
  poolOffset += 16
  bytes.writeUIntBE(nowMs, 0, 6)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const h = bytes.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}
