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

/** A JSON string with its escapes: what the depth scan skips (unrolled, so it never backtracks). */
const JSON_STRING = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"/g

/**
 * How deep a JSON text nests, scanned without parsing and given up as soon
 * as it passes `max`. Its strings are cut out first, in one pass of the
 * regular expression engine: a batch's text is mostly strings, and a loop over
 * every character cost twice as much.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  const bare = text.replace(JSON_STRING, '""')
  let depth = 0
  for (let i = 0; i < bare.length; i++) {
    const c = bare.charCodeAt(i)
    if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}
