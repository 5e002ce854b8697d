import type { FastifyReply, FastifyRequest } from 'fastify'
import { errorBody, toShiplogError } from '../error-answers.ts'

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const shiplogError = toShiplogError(error, request.routeOptions.bodyLimit)
  if (shiplogError.status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ code: shiplogError.code, reason: shiplogError.message }, 'request rejected')
  if (shiplogError.code === 'SHIPLOG_ERR_RATE_LIMITED' && !reply.hasHeader('retry-after'))
    reply.header('retry-after', '60')
  // A dependency away (the database, the job queue): worth trying again in a few seconds.
  if (shiplogError.code === 'SHIPLOG_ERR_UNAVAILABLE' && !reply.hasHeader('retry-after'))
    reply.header('retry-after', '5')
  return reply
    .status(shiplogError.status)
    .header('x-shiplog-error', shiplogError.code)
    .send(errorBody(request.url, shiplogError, request.id))
}
