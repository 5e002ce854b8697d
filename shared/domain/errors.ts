/**
 * One registry of error codes, each with a stable name and an HTTP status.
 * The HTTP error handler turns a ShiplogError into the v1 or v2 error body
 * (shared/infra/error-answers.ts); nothing else decides a status.
 */
export const errorCodes = {
  SHIPLOG_ERR_VALIDATION: 400,
  SHIPLOG_ERR_UNAUTHORIZED: 401,
  SHIPLOG_ERR_FORBIDDEN: 403,
  SHIPLOG_ERR_NOT_FOUND: 404,
  SHIPLOG_ERR_CONFLICT: 409,
  SHIPLOG_ERR_PAYLOAD_TOO_LARGE: 413,
  SHIPLOG_ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  SHIPLOG_ERR_UNPROCESSABLE: 422,
  SHIPLOG_ERR_RATE_LIMITED: 429,
  SHIPLOG_ERR_INTERNAL: 500,
  SHIPLOG_ERR_UNAVAILABLE: 503,
} as const

export type ErrorCode = keyof typeof errorCodes

/** What each code means, for the API reference and docs/errors.md (a test keeps the page complete). */
export const errorMeanings: Record<ErrorCode, string> = {
  SHIPLOG_ERR_VALIDATION: 'A field of the wrong type, missing, or out of bounds; the body names it',
  SHIPLOG_ERR_UNAUTHORIZED: 'No API key, or one no account has',
  SHIPLOG_ERR_FORBIDDEN: 'The public key on a route that takes the private key',
  SHIPLOG_ERR_NOT_FOUND: "No such resource in this account (another account's is not found either)",
  SHIPLOG_ERR_CONFLICT: 'Concurrent changes to the same records, or work already under way; retry later',
  SHIPLOG_ERR_PAYLOAD_TOO_LARGE: "The body is larger than this route's limit",
  SHIPLOG_ERR_UNSUPPORTED_MEDIA_TYPE: 'A Content-Type the route does not take (JSON; multipart for the import)',
  SHIPLOG_ERR_UNPROCESSABLE: 'Well formed but refused: an Idempotency-Key used with another request, a cap reached',
  SHIPLOG_ERR_RATE_LIMITED: 'Too many requests; retry after Retry-After seconds',
  SHIPLOG_ERR_INTERNAL: 'A fault of the service; the body gives only the request id, which the log has',
  SHIPLOG_ERR_UNAVAILABLE: 'Shedding load, or a dependency is away; retry after Retry-After seconds',
}

export class ShiplogError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Per-field reasons, keyed by the field's name as the client sent it. */
    readonly fields: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'ShiplogError'
    this.status = errorCodes[code]
  }
}

export const isShiplogError = (e: unknown): e is ShiplogError => e instanceof ShiplogError

export const validationError = (message: string, fields?: Record<string, string>) =>
  new ShiplogError('SHIPLOG_ERR_VALIDATION', message, fields)
export const notFound = (message: string) => new ShiplogError('SHIPLOG_ERR_NOT_FOUND', message)

/** An append whose expected stream revision no longer holds. */
export class ConcurrencyError extends ShiplogError {
  constructor(
    readonly stream: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super('SHIPLOG_ERR_CONFLICT', `Concurrent change on ${stream}: expected ${expected}, found ${actual}`)
    this.name = 'ConcurrencyError'
  }
}

export const isConcurrencyError = (e: unknown): e is ConcurrencyError => e instanceof ConcurrencyError
