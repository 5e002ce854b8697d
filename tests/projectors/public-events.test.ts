import t from 'tap'
import { eventsProjection, publicEventsOf } from '../../projectors/all-projections.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { wholeDocuments } from '../../shared/infra/read-store/port.ts'
import { openReadStore } from '../support/read-store.ts'

/*
 * The account's public events (GET /v2/events) index each event a message
 * tells of, judged among the events its command wrote with it: an upsert's
 * order.updated beside its order.created, or a tracker.updated beside its
 * tracker.created, is no message and costs the index nothing.
 */

const STREAM = 'order-7_A-1'
let position = 100n
/** An event of the order's stream, written by the command `request` at `at` (one append: same request, same instant). */
const recorded = (type: string, data: object, request: string, at: number): RecordedEvent => {
  position += 1n
  return {
    id: `e-${position}`,
    stream: STREAM,
    revision: Number(position - 101n),
    position,
    type,
    data,
    metadata: { accountId: 7, correlationId: request, recordedAt: at },
  }
}
const tracker = { tracker_id: 11, fulfillment_id: 10, tracking_number: 'TN-1', changes: {}, at: 1 }

// An upsert creating the order, its fulfillment and its tracker, then a later one changing the order twice.
const created = [
  recorded('OrderCreated', { order_id: 1, changes: {}, at: 1 }, 'req_1', 1_000),
  recorded('FulfillmentCreated', { fulfillment_id: 10, changes: {}, at: 1 }, 'req_1', 1_000),
  recorded('TrackerCreated', tracker, 'req_1', 1_000),
  recorded('TrackerUpdated', { ...tracker, changes: { carrier_code: 'dhl' } }, 'req_1', 1_000),
]
const changed = [
  recorded('FulfillmentUpdated', { fulfillment_id: 10, changes: {}, at: 2 }, 'req_2', 2_000),
  recorded('OrderUpdated', { changes: {}, at: 2 }, 'req_2', 2_000),
]
const types = (events: readonly RecordedEvent[]) => publicEventsOf(events).map((e) => [Number(e.id), e.type])

t.test('each command tells of each thing once: a new order and its tracker, then one update', async (t) => {
  t.same(types([...created, ...changed]), [
    [101, 'order.created'],
    [103, 'tracker.created'],
    [105, 'order.updated'],
  ])
})

t.test('an append’s events of other types change nothing', async (t) => {
  const built = recorded('NotificationBuilt', { notification_id: 5 }, 'req_1', 1_000)
  t.same(types([created[0]!, built, ...created.slice(1)]), [
    [101, 'order.created'],
    [103, 'tracker.created'],
  ])
})

t.test('an append the run holds only part of is judged on that part: it can only keep more', async (t) => {
  t.same(types(created.slice(1)), [
    [102, 'order.updated'],
    [103, 'tracker.created'],
  ])
  t.same(types(changed.slice(1)), [[106, 'order.updated']])
})

t.test('the projection indexes only what a message tells of, by type and time', async (t) => {
  const store = openReadStore(t)
  const writes = wholeDocuments(await eventsProjection.apply([...created, ...changed], store))
  t.same(
    writes.map((w) => [w.doc, w.fields]),
    [
      [
        { id: 101, type: 'order.created', created_at: 1, stream: STREAM, tracker_id: null },
        { type: 'order.created', created_at: 1 },
      ],
      [
        { id: 103, type: 'tracker.created', created_at: 1, stream: STREAM, tracker_id: 11 },
        { type: 'tracker.created', created_at: 1 },
      ],
      [
        { id: 105, type: 'order.updated', created_at: 2, stream: STREAM, tracker_id: null },
        { type: 'order.updated', created_at: 2 },
      ],
    ],
  )
  t.same(
    wholeDocuments(await eventsProjection.part(0, 1).apply(created, store)).map((w) => (w.doc as { id: number }).id),
    [101, 103],
    'and so does a rebuild’s part',
  )
})
