import type { OrderEvent } from '../../shared/domain/events/index.ts'
import {
  decidePayloadOutcome,
  evolvePayloadStates,
  isPayloadEvent,
  type PayloadCommand,
} from '../../shared/domain/notifications/payload-outcomes.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { decideOnStream } from '../execute.ts'

/** Where a payload is: its notification in an order's stream. */
export interface PayloadAddress {
  accountId: number
  stream: string
  notificationId: number
  payloadId: number
  trackerId?: number
}

/** A payload's address from what a read model or an event holds: no tracker id for a notification on the order. */
export const payloadAddress = ({
  trackerId,
  ...where
}: Omit<PayloadAddress, 'trackerId'> & { trackerId: number | null | undefined }): PayloadAddress =>
  trackerId === null || trackerId === undefined ? where : { ...where, trackerId }

/**
 * Records a payload's outcome or delivery report on its order's stream, as
 * the payloads' decider says on the payloads' states folded from that
 * stream (a payload past that step records nothing).
 */
export async function recordPayload(
  rt: Pick<Runtime, 'eventStore' | 'clock'>,
  payload: PayloadAddress,
  command: (ids: { notification_id: number; payload_id: number; tracker_id?: number }) => PayloadCommand,
  correlation: string,
) {
  const ids = {
    notification_id: payload.notificationId,
    payload_id: payload.payloadId,
    ...(payload.trackerId === undefined ? {} : { tracker_id: payload.trackerId }),
  }
  await decideOnStream<OrderEvent>(
    rt,
    payload.stream,
    (history) =>
      decidePayloadOutcome(command(ids), history.filter(isPayloadEvent).reduce(evolvePayloadStates, undefined)),
    () => ({
      accountId: payload.accountId,
      correlationId: `${correlation}_${payload.payloadId}`,
      source: 'reaction',
      recordedAt: rt.clock.nowMs(),
    }),
  )
}
