import { type TrackingApi, trackingApiOf } from '../../shared/domain/carriers/tracking-apis.ts'
import { evolvePollState, type PollState } from '../../shared/domain/orders/polling.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'

/**
 * What the poller knows of a tracker whose carrier has a tracking API: part
 * of the tracker's index entry (`TrackerIndexDoc.poll`), so a new tracker
 * writes one read-model row, and the entries due are found by `next_poll_at`.
 */
export interface TrackerPoll extends PollState {
  carrier_code: string
  api: TrackingApi
  /** When polling began: the tracker's creation, or the carrier set on it. */
  since: number
  /** Null once the tracker is final or its carrier is one shiplog does not poll: it is not polled (again). */
  next_poll_at: number | null
}

export const trackerPollEventTypes = [
  'TrackerCreated',
  'TrackerUpdated',
  'TrackerStatusChanged',
  'TrackerPolled',
] as const satisfies OrderEvent['type'][]
export type TrackerPollEvent = Extract<OrderEvent, { type: (typeof trackerPollEventTypes)[number] }>
type CarrierData = Extract<OrderEvent, { type: 'TrackerCreated' | 'TrackerUpdated' }>['data']

/** The carrier an event gives a tracker, and its tracking API when shiplog polls that carrier. */
function polledCarrier(data: CarrierData): { carrier: string; api: TrackingApi } | undefined {
  const carrier = data.changes.carrier?.code
  const api = carrier ? trackingApiOf[carrier] : undefined
  return carrier && api ? { carrier, api } : undefined
}

/** Whether an event changes a tracker's polling: a carrier set or corrected, or a poll. */
export const changesPoll = (event: { type: string; data: unknown }) =>
  (event.type === 'TrackerUpdated' && (event.data as CarrierData).changes.carrier !== undefined) ||
  event.type === 'TrackerPolled'

/**
 * A tracker's polling after an event, `ended` telling whether its status is
 * final after it: a tracker of a carrier with a tracking API is due at once,
 * at its creation or when that carrier is set; a corrected carrier is asked
 * at once, or no more when shiplog does not poll it; an ended tracker is
 * never polled again.
 */
export function evolveTrackerPoll(
  poll: TrackerPoll | undefined,
  event: TrackerPollEvent,
  ended: boolean,
): TrackerPoll | undefined {
  switch (event.type) {
    case 'TrackerCreated':
    case 'TrackerUpdated': {
      if (event.type === 'TrackerUpdated' && event.data.changes.carrier === undefined) return stopped(poll, ended)
      const polled = polledCarrier(event.data)
      if (!polled) return poll && { ...poll, next_poll_at: null }
      const next_poll_at = ended ? null : event.data.at
      if (!poll)
        return { carrier_code: polled.carrier, api: polled.api, since: event.data.at, interval: null, next_poll_at }
      return { ...poll, carrier_code: polled.carrier, api: polled.api, next_poll_at }
    }
    case 'TrackerStatusChanged':
      return stopped(poll, ended)
    case 'TrackerPolled':
      return poll && poll.next_poll_at !== null
        ? { ...poll, ...evolvePollState(poll, event), next_poll_at: ended ? null : event.data.next_poll_at }
        : poll
  }
}

const stopped = (poll: TrackerPoll | undefined, ended: boolean) =>
  poll && ended && poll.next_poll_at !== null ? { ...poll, next_poll_at: null } : poll
