import { type TrackingApi, trackingApiOf } from '../../shared/domain/carriers/tracking-apis.ts'
import { finalStatuses } from '../../shared/domain/orders/polling.ts'
import type { OrderEvent } from '../../shared/domain/orders/state.ts'

/** What the poller knows of a tracker whose carrier has a tracking API. */
export interface TrackerPollDoc {
  id: number
  /** The order stream the tracker's events go to. */
  stream: string
  tracking_number: string
  carrier_code: string
  api: TrackingApi
  created_at: number
  /** Seconds between the last two polls; null before the first. */
  interval: number | null
  /** Null once the tracker is final: it is not polled again. */
  next_poll_at: number | null
}

export const trackerPollEventTypes = [
  'TrackerCreated',
  'TrackerStatusChanged',
  'TrackerPolled',
] as const satisfies OrderEvent['type'][]
export type TrackerPollEvent = Extract<OrderEvent, { type: (typeof trackerPollEventTypes)[number] }>
type TrackerCreatedData = Extract<OrderEvent, { type: 'TrackerCreated' }>['data']

/** The carrier a new tracker is created with, and its tracking API, when shiplog polls that carrier. */
function polledCarrier(data: TrackerCreatedData): { carrier: string; api: TrackingApi } | undefined {
  const carrier = data.changes.carrier?.code
  const api = carrier ? trackingApiOf[carrier] : undefined
  return carrier && api ? { carrier, api } : undefined
}

/**
 * The events that change a poll document: the creation of a tracker whose
 * carrier has a tracking API, polls, and a status change only when it ends
 * the tracker's story. The others (every scan of every parcel, every tracker
 * of a carrier shiplog does not poll) are not even looked up.
 */
export const changesPoll = (event: { type: string; data: unknown }) =>
  (event.type === 'TrackerCreated' && polledCarrier(event.data as TrackerCreatedData) !== undefined) ||
  event.type === 'TrackerPolled' ||
  (event.type === 'TrackerStatusChanged' && finalStatuses.has((event.data as { to: string }).to))

/** Only trackers created with a carrier that has a tracking API get a document; it is due at once. */
export function evolveTrackerPoll(
  doc: TrackerPollDoc | undefined,
  event: TrackerPollEvent,
  stream: string,
): TrackerPollDoc | undefined {
  if (event.type === 'TrackerCreated') {
    const polled = polledCarrier(event.data)
    if (!polled) return undefined
    const { carrier, api } = polled
    const { tracker_id: id, tracking_number, at } = event.data
    return {
      id,
      stream,
      tracking_number,
      carrier_code: carrier,
      api,
      created_at: at,
      interval: null,
      next_poll_at: at,
    }
  }
  if (!doc) return undefined
  switch (event.type) {
    case 'TrackerStatusChanged':
      return finalStatuses.has(event.data.to) ? { ...doc, next_poll_at: null } : doc
    case 'TrackerPolled':
      return doc.next_poll_at === null
        ? doc
        : { ...doc, interval: event.data.interval, next_poll_at: event.data.next_poll_at }
  }
}
