import type { FastifyReply, FastifyRequest } from 'fastify'
import { type CommandRequest, type CommandResponse, changeStream } from '../commands/execute.ts'
import type { DomainEvent } from '../shared/domain/events/index.ts'
import { acceptJob } from '../commands/jobs/accept.ts'
import type { JobQueue } from '../shared/infra/jobs/queue.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { callerOf } from '../shared/infra/http/auth.ts'
import { POSITION_HEADER } from '../shared/infra/http/read-your-writes.ts'

/** The path a request was made on, as called (`/api/v2/...` stays so), without its query. */
export const pathCalled = (request: FastifyRequest) => request.originalUrl.split('?')[0]!

/** The command an HTTP request asks for: its caller's account and key, and its Idempotency-Key. */
export function commandRequest(request: FastifyRequest): CommandRequest {
  const { account, keyId } = callerOf(request)
  const key = request.headers['idempotency-key']
  return {
    source: 'api',
    account,
    correlationId: request.id,
    keyId,
    idempotency:
      typeof key === 'string' && key.length > 0
        ? // The canonical path (/api/v2/... read as /v2/...): a key means one request, whichever prefix.
          { key, method: request.method, path: request.url.split('?')[0]!, body: request.body }
        : undefined,
  }
}

/** Every write response carries the position a read can send back to see it (read-your-writes). */
export function sendCommandResponse(reply: FastifyReply, response: CommandResponse) {
  return reply.status(response.status).header(POSITION_HEADER, response.position.toString()).send(response.body)
}

/** Accepts a job a request asks for: `202` with `Location: /v2/jobs/{id}` (see acceptJob). */
export async function acceptJobRequest(
  rt: Runtime,
  queue: JobQueue,
  request: FastifyRequest,
  job: Parameters<typeof acceptJob>[3],
  answer: 'job' | 'job_id' = 'job',
) {
  const accepted = await acceptJob(rt, queue, commandRequest(request), job, answer, request.log)
  return { jobId: accepted.jobId, send: (reply: FastifyReply) => sendAcceptedJob(reply, accepted) }
}

/** A job accepted: `202` with `Location: /v2/jobs/{id}`. */
export const sendAcceptedJob = (reply: FastifyReply, { jobId, response }: Awaited<ReturnType<typeof acceptJob>>) =>
  sendCommandResponse(reply.header('location', `/v2/jobs/${jobId}`), response)

/** A command on one aggregate's stream (see changeStream), answered over HTTP; `reveal` opens what the recorded answer keeps sealed, on the way out only. */
export async function changeOneStream<E extends DomainEvent, S>(
  rt: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  change: Parameters<typeof changeStream<E, S>>[2] & { reveal?: (body: unknown) => unknown },
) {
  const response = await changeStream(rt, commandRequest(request), change)
  return sendCommandResponse(reply, change.reveal ? { ...response, body: change.reveal(response.body) } : response)
}
