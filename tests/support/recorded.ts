import { randomUUID } from 'node:crypto'
import type { NewEvent, RecordedEvent } from '../../shared/infra/event-store/port.ts'

/** Positions grow across every stream a test records, as the log's do. */
let position = 0n

/** The log's newest position: what a projector's commit of the events recorded so far moves its checkpoint to. */
export const lastPosition = () => position

/**
 * Events of one stream as the log gives them to projectors: each recorded
 * at the next revision (from 0), or at the one given, and the next position.
 */
export function streamEvents(stream: string, accountId = 7) {
  let revision = -1
  return (type: string, data: object, at = revision + 1): RecordedEvent => {
    revision = at
    position += 1n
    return {
      id: `e-${stream}-${at}`,
      stream,
      revision: at,
      position,
      type,
      data,
      metadata: { accountId, correlationId: 't', recordedAt: 0 },
    }
  }
}

/** A new event for an append, of no consequence but its type and data. */
export const newEvent = (type = 'Thing', data: object = {}): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { accountId: 1, correlationId: 't', recordedAt: 0 },
})
