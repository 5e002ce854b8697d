import { join } from 'node:path'
import t from 'tap'
import { toNewEvents } from '../../commands/execute.ts'
import { type DomainEvent, eventTypes, webhookMessageEventTypes } from '../../shared/domain/events/index.ts'
import type { EventStore, StreamRead } from '../../shared/infra/event-store/port.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { messagesOf, sliceFirst } from '../../reactions/webhooks/plan.ts'
import { orderHistory } from '../support/orders.ts'
import { streamEvents } from '../support/recorded.ts'
import { tempDir } from '../support/temp.ts'

/* The webhook reaction plans a batch of the log from the batch itself where it holds a stream whole. */

/** A store that notes which streams it is asked for, and reads them from `backing` (else answers them empty). */
function askedStore(backing?: Pick<EventStore, 'readStreams'>) {
  const asked: StreamRead[] = []
  const store: Pick<EventStore, 'readStreams'> = {
    async readStreams(reads) {
      asked.push(...reads)
      return backing ? backing.readStreams(reads) : reads.map(() => [])
    },
  }
  return { store, asked }
}

t.test(
  'a stream the slice holds from its first event, ending before the slice does, is read from the slice',
  async (t) => {
    const a = streamEvents('order-7_A')
    const b = streamEvents('order-7_B')
    const c = streamEvents('order-7_C')
    const slice = [a('OrderCreated', {}), b('OrderUpdated', {}, 4), a('TrackerCreated', {}), c('OrderCreated', {})]
    const { store, asked } = askedStore()
    const [fromA, fromB, fromC, fromAOn] = await sliceFirst(store, slice).readStreams([
      { stream: 'order-7_A' },
      { stream: 'order-7_B' },
      { stream: 'order-7_C' },
      { stream: 'order-7_A', fromRevision: 1 },
    ])
    t.same(
      fromA!.map((e) => e.type),
      ['OrderCreated', 'TrackerCreated'],
      'A: from its first event, in the slice',
    )
    t.same(
      fromAOn!.map((e) => e.revision),
      [1],
      'from the revision asked for',
    )
    t.same(fromB, [], 'B begins before the slice: read from the store')
    t.same(fromC, [], 'C ends with the slice, and its append may go on: read from the store')
    t.same(
      asked.map((r) => r.stream),
      ['order-7_B', 'order-7_C'],
      'only those two asked of the store, in order',
    )
  },
)

t.test('a stream with a revision missing from the slice is read from the store', async (t) => {
  const a = streamEvents('order-7_A')
  const b = streamEvents('order-7_B')
  const slice = [a('OrderCreated', {}), a('OrderUpdated', {}, 2), b('OrderCreated', {})]
  const { store, asked } = askedStore()
  await sliceFirst(store, slice).readStreams([{ stream: 'order-7_A' }])
  t.same(
    asked.map((r) => r.stream),
    ['order-7_A'],
  )
})

t.test('every page of the log, whatever its size, plans the same messages from itself as from the store', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-plan-'), 'events.db'))
  t.teardown(() => store.close())
  const append = (correlationId: string, recordedAt: number, streams: [string, DomainEvent[]][]) =>
    store.append(
      streams.map(([stream, events]) => ({
        stream,
        expected: 'any' as const,
        events: toNewEvents(events, { accountId: 1, correlationId, source: 'api', recordedAt }),
      })),
    )
  const updated = (email: string, at: number): DomainEvent => ({
    type: 'OrderUpdated',
    data: { changes: { email }, at },
  })
  // The order, fulfillment and tracker of `orderHistory`, with the UUIDs an append checks.
  const created = (at: number) =>
    orderHistory(at).map(
      (e, i) => ({ ...e, data: { ...e.data, uuid: `00000000-0000-4000-8000-00000000000${i}` } }) as DomainEvent,
    )
  await append('c1', 1_000, [
    ['order-1_A', created(1)],
    ['order-1_B', created(1)],
  ])
  // The reaction's own record between two commands: a message stream, which its reads pass over.
  await append('w1', 1_500, [
    [
      'webhook-1_1_5',
      [
        {
          type: 'WebhookMessageCreated',
          data: { delivery_id: 1, endpoint_id: 1, position: '5', type: 'order.created', body: '{}', at: 1 },
        },
      ],
    ],
  ])
  await append('c2', 2_000, [
    ['order-1_A', [updated('a@example.com', 2)]],
    ['order-1_C', created(2)],
  ])
  // Another command at the same instant: a stream's append is told apart by its request.
  await append('c3', 2_000, [
    ['order-1_B', [updated('b@example.com', 2), updated('b2@example.com', 2)]],
    ['order-1_C', [updated('c@example.com', 2)]],
  ])
  const everyone = { recipients: () => [{ id: 1 }] }
  const log = await store.readAll({ limit: 1000 })
  t.equal(log.length, 14)
  const direct = askedStore(store)
  const beneathSlice = askedStore(store)
  // Pages of the whole log, and pages without the messages' own events, as the reaction reads them.
  const kept = eventTypes.filter((type) => !(webhookMessageEventTypes as readonly string[]).includes(type))
  for (const types of [undefined, kept]) {
    for (let size = 1; size <= log.length; size++) {
      for (let after = 0n; ; ) {
        const page = await store.readAll({ after, limit: size, types })
        if (page.length === 0) break
        const planned = await messagesOf(sliceFirst(beneathSlice.store, page), page, everyone)
        // The same page read again, its events not yet parsed, planned from the store alone.
        const again = await store.readAll({ after, limit: size, types })
        const which = `pages of ${size} after ${after}${types ? ' without the messages’ events' : ''}`
        t.same(planned, await messagesOf(direct.store, again, everyone), which)
        after = page.at(-1)!.position
      }
    }
  }
  t.ok(
    beneathSlice.asked.length < direct.asked.length,
    `fewer streams read from the store: ${beneathSlice.asked.length} against ${direct.asked.length}`,
  )
  const wholeLog = askedStore(store)
  await messagesOf(sliceFirst(wholeLog.store, log), log, everyone)
  t.same(
    wholeLog.asked.map((r) => r.stream),
    ['order-1_C'],
    'the whole log as one page reads only the stream it ends with',
  )
})
