import { errorCodes, isShiplogError, ShiplogError, type ErrorCode } from '../domain/errors.ts'
import { describeIssues, RequestValidationError } from './request-issues.ts'

const codeForStatus = (status: number): ErrorCode =>
  (Object.entries(errorCodes).find(([, s]) => s === status)?.[0] as ErrorCode | undefined) ??
  (status >= 500 ? 'SHIPLOG_ERR_INTERNAL' : 'SHIPLOG_ERR_VALIDATION')

/** Turns whatever was thrown into a ShiplogError; anything unforeseen is a 500 that hides its details. */
export function toShiplogError(error: unknown, limit?: number): ShiplogError {
  if (isShiplogError(error)) return error
  if (error instanceof RequestValidationError) {
    const { message, fields } = describeIssues(error)
    return new ShiplogError('SHIPLOG_ERR_VALIDATION', message, fields)
  }
  // fastify's own errors, told by their code and status (the HTTP edge's only, but plain data).
  const e = error as { code?: string; statusCode?: number; message?: string }
  if (
    e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    e instanceof SyntaxError
  ) {
    return new ShiplogError('SHIPLOG_ERR_VALIDATION', 'Body is not valid JSON')
  }
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ShiplogError('SHIPLOG_ERR_PAYLOAD_TOO_LARGE', bodyTooLarge(limit))
  }
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ShiplogError('SHIPLOG_ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json')
  }
  // A store adapter marks the errors of a database that is not there (shared/infra/postgres.ts).
  if ((error as { storeUnavailable?: boolean }).storeUnavailable) {
    return new ShiplogError('SHIPLOG_ERR_UNAVAILABLE', 'The database is unavailable; retry shortly')
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ShiplogError(codeForStatus(e.statusCode), e.message ?? 'Bad request')
  }
  return new ShiplogError('SHIPLOG_ERR_INTERNAL', 'Internal server error')
}

/** A body refused for its size, naming the route's limit ("larger than 1 MB"). */
export function bodyTooLarge(limit: number | undefined) {
  return limit === undefined ? 'Body is larger than the limit' : `Body is larger than ${byteSize(limit)}, the limit`
}

/** A number of bytes as a person reads it: 64 KB, 1 MB, 10 MB, 1.5 MB. */
export function byteSize(bytes: number) {
  const [unit, size] = bytes >= 1024 * 1024 ? ['MB', 1024 * 1024] : bytes >= 1024 ? ['KB', 1024] : ['bytes', 1]
  return `${Number((bytes / size).toFixed(1))} ${unit}`
}

/** The specification's v1 routes, whose errors are `{"error": ...}`; shiplog's own v1 routes (SMS callbacks) use v2's form. */
const specV1Routes = ['/v1/trackers', '/v1/delivery_date_estimation']
export const hasV1ErrorForm = (path: string) => specV1Routes.includes(path.split('?')[0]!.replace(/\/+$/, ''))

/** The spec's v1 routes answer `{"error": ...}`; every other route `{"errors": {"details": ..., <field>: ...}}`. */
export function errorBody(url: string, error: ShiplogError, requestId: string) {
  const withRequestId = error.status >= 500 ? { request_id: requestId } : {}
  if (hasV1ErrorForm(url)) return { error: error.message, ...withRequestId }
  return { errors: { details: error.message, ...error.fields }, ...withRequestId }
}
