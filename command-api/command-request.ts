import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  type CommandRequest,
  type CommandResponse,
  executeCommand,
  metadataFor,
  toNewEvents,
} from '../commands/execute.ts'
import type { DomainEvent } from '../shared/domain/events/index.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'
import { expectedAfter } from '../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../shared/infra/event-store/recorded.ts'
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
  const { jobId, response } = await acceptJob(rt, queue, commandRequest(request), job, answer, request.log)
  return {
    jobId,
    send: (reply: FastifyReply) => sendCommandResponse(reply.header('location', `/v2/jobs/${jobId}`), response),
  }
}

/**
 * A command decided on one aggregate's stream, through the command core
 * (Idempotency-Key, expected revision, visibility), answered from the
 * stream's events with those decided; `reveal` opens what the recorded
 * answer keeps sealed, on the way out only.
 */
export async function changeOneStream<E extends DomainEvent, S>(
  rt: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  change: {
    stream: string
    evolve: (state: S | undefined, event: E) => S
    decide: (at: number, state: S | undefined) => E[]
    answer: (all: E[]) => { status: number; body: unknown }
    reveal?: (body: unknown) => unknown
  },
) {
  const command = commandRequest(request)
  const response = await executeCommand(rt, command, async () => {
    const recorded = await rt.eventStore.readStream(change.stream)
    const history = asDomainEvents<E>(recorded)
    const now = rt.clock.now()
    const events = change.decide(toUnixSeconds(now), history.reduce(change.evolve, undefined as S | undefined))
    return {
      appends: [
        {
          stream: change.stream,
          expected: expectedAfter(recorded.length - 1),
          events: toNewEvents(events, metadataFor(command, now.getTime())),
        },
      ],
      ...change.answer([...history, ...events]),
      readPosition: recorded.at(-1)?.position ?? 0n,
    }
  })
  return sendCommandResponse(reply, change.reveal ? { ...response, body: change.reveal(response.body) } : response)
}
