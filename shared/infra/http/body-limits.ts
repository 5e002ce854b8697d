/*
 * What a request body may be, per route: a batch its size (BODY_LIMIT), one
 * order a megabyte, anything else (a setting, an endpoint, an estimation)
 * far less. And how deep it may nest: refused before it is parsed, since
 * parsing and validating a body of nested arrays holds the event loop.
 */

/** Every route's body unless it says otherwise: a resource's settings, an endpoint, a command. */
export const SMALL_BODY_LIMIT = 64 * 1024
/** One order with its fulfillments, trackers and line items. */
export const ORDER_BODY_LIMIT = 1024 * 1024
/** A delivery date estimation's question, which the public key may ask. */
export const ESTIMATION_BODY_LIMIT = 16 * 1024

/** Deeper than any route needs: custom_variables' 16 levels inside an order's own. */
export const MAX_JSON_DEPTH = 32

/**
 * How deep a JSON text nests, scanned on its UTF-8 bytes without parsing and
 * given up as soon as it passes `max`. Structural characters are ASCII and no
 * byte of a multi-byte character is, so one loop over the bytes, skipping
 * strings and their escapes, is the whole scan: a batch of a thousand items
 * in under half a millisecond, a third of what cutting the strings out of
 * its text with a regular expression took. A string left open (not JSON)
 * takes the rest of the text, which the parse then refuses.
 */
export function jsonDepthExceeds(bytes: Uint8Array, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
