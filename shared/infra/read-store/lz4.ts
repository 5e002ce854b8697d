import { compressSync, uncompressSync } from 'lz4-napi'
import type { ViewBytes } from './port.ts'

/*
 * LZ4 as lz4-napi (a maintained binding of lz4_flex) writes it: the decoded
 * size as a 32-bit little-endian integer, then one LZ4 block.
 */

export const compress = (text: string): Buffer => compressSync(text)

export const decompressText = (stored: Buffer): string => uncompressSync(stored).toString()

/**
 * A compressed view, decoded straight into the caller's buffer. lz4-napi can
 * only decode into a new buffer of its own, and a page of orders would then
 * make a buffer per order for V8 to count towards its next full collection;
 * this decoder writes where the answer is built.
 */
export function compressedView(stored: Buffer): ViewBytes {
  const byteLength = stored.readUInt32LE(0)
  return {
    byteLength,
    copyTo(target, offset) {
      const end = decodeLz4Block(stored, 4, target, offset)
      if (end - offset !== byteLength)
        throw new Error(`corrupt LZ4 view: ${end - offset} bytes decoded, ${byteLength} expected`)
    },
  }
}

/** Runs up to this long are copied byte by byte: cheaper than a native call for the short runs of JSON. */
const SHORT_RUN = 32

/**
 * Decodes one LZ4 block (the format of lz4/doc/lz4_Block_format.md) from
 * `src[from..]` into `dst` at `at`; returns the offset after the last byte
 * written. Each sequence is a token (literal length, match length), the
 * literals, then a match: a 2-byte offset back into the output and a length.
 */
export function decodeLz4Block(src: Uint8Array, from: number, dst: Uint8Array, at: number): number {
  let i = from
  let o = at
  while (i < src.length) {
    const token = src[i++]!
    let literals = token >>> 4
    if (literals === 15) {
      let more: number
      do literals += more = src[i++]!
      while (more === 255)
    }
    if (literals > SHORT_RUN) {
      dst.set(src.subarray(i, i + literals), o)
      i += literals
      o += literals
    } else {
      for (const stop = i + literals; i < stop; ) dst[o++] = src[i++]!
    }
    if (i >= src.length) break // the last sequence has literals only
    const offset = src[i]! | (src[i + 1]! << 8)
    i += 2
    let length = token & 15
    if (length === 15) {
      let more: number
      do length += more = src[i++]!
      while (more === 255)
    }
    length += 4 // the shortest match
    let m = o - offset
    if (offset === 0 || m < at) throw new Error('corrupt LZ4 block: a match reaches before the output')
    if (length > SHORT_RUN && offset >= length) {
      dst.copyWithin(o, m, m + length)
      o += length
    } else {
      // Short, or overlapping what it writes (a repeated pattern): byte by byte.
      for (const stop = o + length; o < stop; ) dst[o++] = dst[m++]!
    }
  }
  return o
}
