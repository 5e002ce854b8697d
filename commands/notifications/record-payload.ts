import { decidePayloadOutcome, type PayloadCommand } from '../../shared/domain/notifications/payload-outcomes.ts'
import type { EventMetadata } from '../../shared/infra/event-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { toNewEvents } from '../execute.ts'

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
 * the payloads' decider says (a payload past that step records nothing);
 * whatever else the order does meanwhile, this only adds.
 */
export async function recordPayload(
  rt: Pick<Runtime, 'eventStore' | 'clock'>,
  payload: PayloadAddress,
  status: string,
  command: (ids: { notification_id: number; payload_id: number; tracker_id?: number }) => PayloadCommand,
  correlation: string,
) {
  const ids = {
    notification_id: payload.notificationId,
    payload_id: payload.payloadId,
    ...(payload.trackerId === undefined ? {} : { tracker_id: payload.trackerId }),
  }
  const events = decidePayloadOutcome(command(ids), { [payload.payloadId]: status })
  if (events.length === 0) return
  const metadata: EventMetadata = {
    accountId: payload.accountId,
    correlationId: `${correlation}_${payload.payloadId}`,
    source: 'reaction',
    recordedAt: rt.clock.nowMs(),
  }
  await rt.eventStore.append([{ stream: payload.stream, expected: 'any', events: toNewEvents(events, metadata) }])
}
