/** How long an embedded store's statement waits for another connection's lock before it fails. */
export const BUSY_TIMEOUT_MS = 10_000
