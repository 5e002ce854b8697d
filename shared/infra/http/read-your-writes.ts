import type { FastifyRequest } from 'fastify'
import { validationError } from '../../domain/errors.ts'
import { waitForProjections } from '../read-store/wait-for-projections.ts'
import type { Runtime } from '../runtime.ts'

/** Sent on every write response; a read that sends it back sees that write. */
export const POSITION_HEADER = 'x-shiplog-position'

/**
 * Read-your-writes: when the request carries X-Shiplog-Position, wait (bounded
 * by CONSISTENCY_WAIT_MS) until the projections it reads have passed it.
 * Without the header reads are eventually consistent and never wait.
 */
export async function awaitPosition(
  request: FastifyRequest,
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'projections'>,
  projections: readonly string[],
): Promise<void> {
  const header = request.headers[POSITION_HEADER]
  if (header === undefined) return
  if (typeof header !== 'string' || !/^\d{1,20}$/.test(header)) {
    throw validationError('X-Shiplog-Position must be a position returned by a write', {
      [POSITION_HEADER]: 'is not a position',
    })
  }
  // A position no write has answered yet would hold the read for the whole wait, for nothing.
  const position = BigInt(header)
  const head = await rt.eventStore.head()
  if (position > head) {
    throw validationError(`X-Shiplog-Position ${position} is beyond the log's head (${head})`, {
      [POSITION_HEADER]: 'is beyond the last position written',
    })
  }
  await waitForProjections(rt.readStore, projections, position, rt.config.CONSISTENCY_WAIT_MS, rt.projections)
}
