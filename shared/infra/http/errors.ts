import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { errorCodes, isShiplogError, ShiplogError, type ErrorCode } from '../../domain/errors.ts'
import { describeIssues, RequestValidationError } from './validation.ts'

const codeForStatus = (status: number): ErrorCode =>
  (Object.entries(errorCodes).find(([, s]) => s === status)?.[0] as ErrorCode | undefined) ??
  (status >= 500 ? 'SHIPLOG_ERR_INTERNAL' : 'SHIPLOG_ERR_VALIDATION')

/** Turns whatever was thrown into a ShiplogError; anything unforeseen is a 500 that hides its details. */
export function toShiplogError(error: unknown): ShiplogError {
  if (isShiplogError(error)) return error
  if (error instanceof RequestValidationError) {
    const { message, fields } = describeIssues(error)
    return new ShiplogError('SHIPLOG_ERR_VALIDATION', message, fields)
  }
  const e = error as FastifyError
  if (
    e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    e instanceof SyntaxError
  ) {
    return new ShiplogError('SHIPLOG_ERR_VALIDATION', 'Body is not valid JSON')
  }
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ShiplogError('SHIPLOG_ERR_PAYLOAD_TOO_LARGE', 'Body is larger than the limit')
  }
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ShiplogError('SHIPLOG_ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json')
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ShiplogError(codeForStatus(e.statusCode), e.message)
  }
  return new ShiplogError('SHIPLOG_ERR_INTERNAL', 'Internal server error')
}

/** v1 routes answer `{"error": ...}`; every other route `{"errors": {"details": ..., <field>: ...}}`. */
export function errorBody(url: string, error: ShiplogError, requestId: string) {
  const withRequestId = error.status >= 500 ? { request_id: requestId } : {}
  if (url.startsWith('/v1/')) return { error: error.message, ...withRequestId }
  return { errors: { details: error.message, ...error.fields }, ...withRequestId }
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const shiplogError = toShiplogError(error)
  if (shiplogError.status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ code: shiplogError.code, reason: shiplogError.message }, 'request rejected')
  if (shiplogError.code === 'SHIPLOG_ERR_RATE_LIMITED' && !reply.hasHeader('retry-after'))
    reply.header('retry-after', '60')
  return reply
    .status(shiplogError.status)
    .header('x-shiplog-error', shiplogError.code)
    .send(errorBody(request.url, shiplogError, request.id))
}
