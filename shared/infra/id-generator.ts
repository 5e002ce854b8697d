import { randomFillSync } from 'node:crypto'
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
    uuid: randomUuid,
  }
}

/** The lowest id allocated at or after a time in Unix milliseconds: ids above it are newer. */
export const firstIdAt = (ms: number) => Math.max(ms - EPOCH_MS, 0) * 2 ** (NODE_BITS + SEQUENCE_BITS)

/** The millisecond an id was allocated in (for diagnostics). */
export const idTime = (id: number): Date => new Date(Math.floor(id / 2 ** (NODE_BITS + SEQUENCE_BITS)) + EPOCH_MS)

/** Random bytes drawn 4 KiB at a time: one system call for 256 UUIDs. */
const pool = Buffer.alloc(4096)
let poolOffset = pool.length

/** The offset in `pool` of 16 random bytes no other UUID uses. */
function randomBytes16(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  poolOffset += 16
  return poolOffset - 16
}

const HEX_DIGITS = Buffer.from('0123456789abcdef')
/** Where each of the 16 bytes' two hex digits go in `8-4-4-4-12`. */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]
const uuidText = Buffer.alloc(36, '-')

/**
 * The UUID of pool bytes at `offset`, with its version and RFC 9562 variant
 * set. Written as ASCII into one buffer and read out as one flat string: a
 * batch makes thousands of ids, and hex-encoding then slicing and joining
 * allocated some 600 bytes for each where this allocates the string alone.
 */
function uuidOf(offset: number, version: number): string {
  pool[offset + 6] = (pool[offset + 6]! & 0x0f) | (version << 4)
  pool[offset + 8] = (pool[offset + 8]! & 0x3f) | 0x80
  for (let i = 0; i < 16; i++) {
    const byte = pool[offset + i]!
    const at = DIGIT_AT[i]!
    uuidText[at] = HEX_DIGITS[byte >> 4]!
    uuidText[at + 1] = HEX_DIGITS[byte & 0x0f]!
  }
  return uuidText.toString('latin1', 0, 36)
}

/** A random (version 4) UUID, as resources' `uuid` fields carry. */
export const randomUuid = (): string => uuidOf(randomBytes16(), 4)

/**
 * Event ids: RFC 9562 UUIDv7, time-ordered, so the unique index on event ids
 * grows at its end instead of at random places (KurrentDB takes any UUID).
 */
export function eventId(nowMs: number = Date.now()): string {
  const offset = randomBytes16()
  pool.writeUIntBE(nowMs, offset, 6)
  return uuidOf(offset, 7)
}
