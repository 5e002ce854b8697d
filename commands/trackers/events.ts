import { z } from 'zod'
import { countryCode, dateTime } from '../../shared/domain/fields.ts'
import {
  decideTrackingEvents,
  type CarrierEventInput,
  type TrackingEventOutcome,
} from '../../shared/domain/orders/record-tracking-events.ts'
import { eventTypeCodes } from '../../shared/domain/vocabulary/tracking-codes.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { expectedAfter } from '../../shared/infra/event-store/port.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { waitForProjections } from '../../shared/infra/read-store/wait-for-projections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { metadataFor, toNewEvents, type CommandPlan, type CommandRequest } from '../execute.ts'
import { orderDocumentKeyOf } from '../../projectors/orders/tracker-index.ts'
import { notificationPreferencesOf } from '../notifications/preferences.ts'
import { learnedHistory } from '../../projectors/deliveries/learned.ts'
import { learnedFor } from '../../shared/domain/delivery/history.ts'
import { configuredServices } from '../../projectors/carrier-services/configured.ts'
import type { OrderStates } from './upsert.ts'

/** Most carrier events one POST /v2/trackers/events may carry. */
export const MAX_EVENTS_PER_REQUEST = 1000

const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullish()

/**
 * Where a scan happened. `postal_code` and `state_code`, the names of the
 * pickup point CSV and the tracking page, are the same fields as `zip` and
 * `state`; any other key is refused, since a dropped one would never match
 * a pickup point.
 */
const carrierEventAddress = z
  .strictObject({
    address1: optionalText(500),
    city: optionalText(200),
    zip: optionalText(50),
    postal_code: optionalText(50),
    state: optionalText(100),
    state_code: optionalText(100),
    country_code: z.string().trim().pipe(countryCode).nullish(),
  })
  .superRefine((a, ctx) => {
    for (const [alias, field] of [
      ['postal_code', 'zip'],
      ['state_code', 'state'],
    ] as const) {
      if (a[alias] != null && a[field] != null && a[alias] !== a[field])
        ctx.addIssue({ code: 'custom', path: [alias], message: `is ${field} by another name: send one of them` })
    }
  })
  .transform(({ postal_code, state_code, ...a }) => ({
    ...a,
    zip: a.zip ?? postal_code,
    state: a.state ?? state_code,
  }))

/** One carrier event as the push API takes it; carrier polling holds what it fetches to the same rules. */
export const carrierEventSchema = z.object({
  tracking_number: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  carrier_code: z.string().trim().min(1, 'must not be empty').max(50).nullish(),
  event_type_code: z
    .enum(eventTypeCodes, { error: `must be one of ${eventTypeCodes.join(', ')}, or null` })
    .nullish()
    .transform((v) => v ?? null),
  happened_at: dateTime,
  message: optionalText(2000),
  messages: z.record(z.string().min(2).max(10), z.string().max(2000)).nullish(),
  address: carrierEventAddress.nullish(),
  raw: optionalText(16_384),
  carrier_event_id: z.string().min(1, 'must not be empty').max(200).nullish(),
  expected_delivery_at: dateTime.nullish(),
})

export const trackingEventsBody = z.object({
  events: z
    .array(carrierEventSchema)
    .min(1, 'must hold at least one event')
    .max(MAX_EVENTS_PER_REQUEST, `at most ${MAX_EVENTS_PER_REQUEST} events per request`),
})

/** The 201 body: what became of each event, in request order. */
export const trackingEventsResponse = z.object({
  events: z.array(
    z.object({
      tracking_number: z.string(),
      status: z.enum(['created', 'duplicate', 'unknown_tracker']),
      tracker_ids: z.array(z.number().int()),
      event_id: z.number().int().nullable(),
    }),
  ),
})
export type TrackingEventResult = z.output<typeof trackingEventsResponse>['events'][number] & {
  status: TrackingEventOutcome['status'] | 'unknown_tracker'
}

const TRACKERS = collections.trackers.name

/**
 * Plans recording carrier events: the trackers with each tracking number are
 * found in the trackers read model, their orders are read from the event
 * store, and each order decides on its share; everything is one atomic append.
 */
export function planTrackingEvents(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids' | 'config'>,
  orders: OrderStates,
  request: CommandRequest,
  inputs: readonly CarrierEventInput[],
): () => Promise<CommandPlan> {
  const accountId = request.account.id
  // Ids for events that turn out new: one per item, shared by every tracker it applies to.
  const eventIds = inputs.map(() => rt.ids.next())
  return async () => {
    const byOrder = await ordersOfTrackingNumbers(rt, accountId, inputs)
    const streams = [...byOrder.keys()]
    const loaded = await orders.loadMany(rt.eventStore, streams)
    const carrierServices = await configuredServices(rt, accountId)
    // Only an account with configured services promises dates, from what its deliveries taught.
    const history = carrierServices.length > 0 ? await learnedHistory(rt, accountId, carrierServices) : undefined
    const now = rt.clock.now()
    const metadata = metadataFor(request, now.getTime())
    const results: TrackingEventResult[] = inputs.map((e) => ({
      tracking_number: e.tracking_number,
      status: 'unknown_tracker',
      tracker_ids: [],
      event_id: null,
    }))
    const decided = streams.map((stream, s) => {
      const indexes = byOrder.get(stream)!
      const current = loaded[s]!
      const { events, outcomes, order } = decideTrackingEvents(
        {
          events: indexes.map((i) => inputs[i]!),
          eventIds: indexes.map((i) => eventIds[i]!),
          now: toUnixSeconds(now),
          ids: rt.ids,
          carrierServices,
          learned: history && ((lane) => learnedFor(history, lane)),
          notifying: notificationPreferencesOf(request.account, rt.config),
          language: request.account.language_code,
        },
        current.state,
      )
      for (const outcome of outcomes) merge(results[indexes[outcome.index]!]!, outcome)
      return {
        state: order,
        append: orders.appendOf(current, order, {
          stream,
          expected: expectedAfter(current.revision),
          // Validated once, by the request schema (tests/unit/decided-events.test.ts holds the decider to the event schemas).
          events: toNewEvents(events, metadata, { prechecked: true }),
        }),
      }
    })
    return {
      appends: decided.map((d) => d.append),
      status: 201,
      body: { events: results },
      readPosition: loaded.reduce((max, l) => (l.position > max ? l.position : max), 0n),
      onAppended: (revisions, position) => orders.appended(decided, revisions, position),
    }
  }
}

/** An event found new on any tracker is created; its id is the new one, else the one already recorded. */
function merge(result: TrackingEventResult, outcome: TrackingEventOutcome) {
  result.tracker_ids.push(...outcome.tracker_ids)
  if (result.status !== 'created') {
    result.status = outcome.status
    result.event_id = outcome.event_id
  }
}

/** The order streams holding trackers of each tracking number, with the indexes of the inputs they concern. */
async function ordersOfTrackingNumbers(
  rt: Pick<Runtime, 'readStore' | 'eventStore' | 'config'>,
  accountId: number,
  inputs: readonly CarrierEventInput[],
): Promise<Map<string, number[]>> {
  const streamsOf = new Map<string, string[]>()
  const lookUp = async (numbers: string[]) => {
    const keys = await rt.readStore.keysByField(TRACKERS, accountId, 'tracking_number', numbers)
    for (const number of numbers) {
      streamsOf.set(number, [...new Set((keys.get(number) ?? []).map(orderDocumentKeyOf))])
    }
  }
  await lookUp([...new Set(inputs.map((e) => e.tracking_number))])
  // A number not found may belong to a tracker created moments ago: once the
  // read model has caught up with the log (bounded wait), look again.
  const unknown = [...streamsOf].filter(([, streams]) => streams.length === 0).map(([number]) => number)
  if (unknown.length > 0) {
    await waitForProjections(rt.readStore, [TRACKERS], await rt.eventStore.head(), rt.config.CONSISTENCY_WAIT_MS)
    await lookUp(unknown)
  }
  const byOrder = new Map<string, number[]>()
  inputs.forEach((e, index) => {
    for (const stream of streamsOf.get(e.tracking_number)!) {
      const list = byOrder.get(stream) ?? []
      list.push(index)
      byOrder.set(stream, list)
    }
  })
  return byOrder
}
