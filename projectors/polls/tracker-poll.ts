import { type TrackingApi, trackingApiOf } from '../../shared/domain/carriers/tracking-apis.ts'
import { evolvePollState, finalStatuses, type PollState } from '../../shared/domain/orders/polling.ts'
import type { OrderEvent } from '../../shared/domain/orders/state.ts'

/** What the poller knows of a tracker whose carrier has a tracking API. */
export interface TrackerPollDoc extends PollState {
  id: number
  /** The order stream the tracker's events go to. */
  stream: string
  /** Empty when the carrier was set after the tracker's creation: the poller reads it from the tracker. */
  tracking_number: string
  carrier_code: string
  api: TrackingApi
  /** When polling began: the tracker's creation, or the carrier set on it. */
  created_at: number
  /** Null once the tracker is final or its carrier is one shiplog does not poll: it is not polled (again). */
  next_poll_at: number | null
  /** The tracker's story is over: a corrected carrier does not start polling again. */
  final?: boolean
}

export const trackerPollEventTypes = [
  'TrackerCreated',
  'TrackerUpdated',
  'TrackerStatusChanged',
  'TrackerPolled',
] as const satisfies OrderEvent['type'][]
export type TrackerPollEvent = Extract<OrderEvent, { type: (typeof trackerPollEventTypes)[number] }>
type TrackerCreatedData = Extract<OrderEvent, { type: 'TrackerCreated' | 'TrackerUpdated' }>['data']

/** The carrier an event gives a tracker, and its tracking API when shiplog polls that carrier. */
function polledCarrier(data: TrackerCreatedData): { carrier: string; api: TrackingApi } | undefined {
  const carrier = data.changes.carrier?.code
  const api = carrier ? trackingApiOf[carrier] : undefined
  return carrier && api ? { carrier, api } : undefined
}

/**
 * The events that change a poll document: the creation of a tracker whose
 * carrier has a tracking API, a carrier set or corrected, polls, and a status
 * change only when it ends the tracker's story. The others (every scan of
 * every parcel, every tracker of a carrier shiplog does not poll) are not even
 * looked up.
 */
export const changesPoll = (event: { type: string; data: unknown }) =>
  (event.type === 'TrackerCreated' && polledCarrier(event.data as TrackerCreatedData) !== undefined) ||
  (event.type === 'TrackerUpdated' && (event.data as TrackerCreatedData).changes.carrier !== undefined) ||
  event.type === 'TrackerPolled' ||
  (event.type === 'TrackerStatusChanged' && finalStatuses.has((event.data as { to: string }).to))

/** Only trackers with a carrier that has a tracking API get a document; it is due at once. */
export function evolveTrackerPoll(
  doc: TrackerPollDoc | undefined,
  event: TrackerPollEvent,
  stream: string,
): TrackerPollDoc | undefined {
  if (event.type === 'TrackerCreated' || (event.type === 'TrackerUpdated' && !doc)) {
    const polled = polledCarrier(event.data)
    if (!polled) return doc
    const { tracker_id: id, at } = event.data
    return {
      id,
      stream,
      tracking_number: event.type === 'TrackerCreated' ? event.data.tracking_number : '',
      carrier_code: polled.carrier,
      api: polled.api,
      created_at: at,
      interval: null,
      next_poll_at: at,
    }
  }
  if (!doc) return undefined
  switch (event.type) {
    case 'TrackerUpdated': {
      if (event.data.changes.carrier === undefined) return doc
      // A corrected carrier: the next poll asks the new one at once, or none when shiplog does not poll it.
      const polled = polledCarrier(event.data)
      if (!polled) return { ...doc, next_poll_at: null }
      return {
        ...doc,
        carrier_code: polled.carrier,
        api: polled.api,
        next_poll_at: doc.final ? null : event.data.at,
      }
    }
    case 'TrackerStatusChanged':
      return finalStatuses.has(event.data.to) ? { ...doc, final: true, next_poll_at: null } : doc
    case 'TrackerPolled':
      return doc.next_poll_at === null
        ? doc
        : { ...doc, ...evolvePollState(doc, event), next_poll_at: event.data.next_poll_at }
  }
}
