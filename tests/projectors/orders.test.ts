import { join } from 'node:path'
import t from 'tap'
import { ordersProjection } from '../../projectors/all-projections.ts'
import { foldOrder } from '../../shared/domain/orders/evolve-document.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import type { RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { allCollections } from '../../shared/infra/read-store/collections.ts'
import { isAppend } from '../../shared/infra/read-store/port.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { orderHistory, recordedCarrierEvent, TRACKER } from '../support/orders.ts'
import { watchingLookups } from '../support/read-store.ts'
import { lastPosition, streamEvents } from '../support/recorded.ts'
import { tempDir } from '../support/temp.ts'

/* The orders read model: an order's events are kept beside its document, not folded into it at each change. */

const AT = 1_800_000_000
const STREAM = 'order-7_R-1'

t.test(
  'an order is written as its events and its scans appended unread; reads fold them; many are written whole',
  async (t) => {
    const store = createSqliteReadStore(join(tempDir(t, 'shiplog-orders-'), 'read.db'), allCollections)
    t.teardown(() => store.close())
    const { watched, lookedUp } = watchingLookups(store)
    const event = streamEvents(STREAM)
    const history: OrderEvent[] = []
    const apply = async (events: RecordedEvent[]) => {
      lookedUp.length = 0
      const writes = await ordersProjection.apply(events, watched)
      await store.commit([ordersProjection.name], writes, lastPosition())
      return writes
    }
    const record = (...events: OrderEvent[]) => {
      history.push(...events)
      return events.map((e) => event(e.type, e.data))
    }
    const scan = (n: number): OrderEvent[] => [
      {
        type: 'TrackingEventRecorded',
        data: { tracker_id: TRACKER, event: recordedCarrierEvent(100 + n, `k${n}`, 'transit', AT + n), at: AT + n },
      },
      {
        type: 'TrackerStatusChanged',
        data: { tracker_id: TRACKER, from: 'pending', to: 'in_transit', happened_at: AT + n, at: AT + n },
      },
    ]
    const stored = async () => (await store.getByKey(ordersProjection.collection, STREAM))!

    // When an order is created with its tracker
    const [created, ...others] = await apply(record(...orderHistory(AT)))
    // Then it is written as its events, its indexed fields those of its creation
    t.same(others, [])
    t.match(created, { key: STREAM, revision: 2, creates: { id: 10, fields: { order_number: 'R-1' } } })
    t.match(await stored(), { revision: 2, pending: 3 })
    t.same((await stored()).doc, foldOrder(history))

    // When a scan of its tracker is projected
    const [appended, ...more] = await apply(record(...scan(1)))

    // Then its events were appended without reading the order
    t.same(lookedUp, [], 'the order is not looked up')
    t.same(more, [])
    t.match(appended, { key: STREAM, after: 2, revision: 4 })
    t.ok(appended && isAppend(appended), 'an append, not a whole document')
    // And a read gives the order as the whole fold makes it
    t.match(await stored(), { revision: 4, pending: 5 })
    t.same((await stored()).doc, foldOrder(history))

    // When the same events are projected again (a replay), then nothing changes
    const replay = history.map((e, revision) => event(e.type, e.data, revision))
    t.same(await apply(replay.slice(3)), [], 'the scan is not appended again')
    await apply(replay.slice(0, 3))
    t.match(await stored(), { revision: 4, pending: 5 })

    // When scans go on until twenty-three events are pending
    for (let n = 2; n <= 10; n++) await apply(record(...scan(n)))
    t.match(await stored(), { revision: 22, pending: 23 })
    // Then the next scan, which would make twenty-five, reads the order and writes it whole, folded
    const [whole] = await apply(record(...scan(11)))
    t.same(lookedUp, [[STREAM]])
    t.notOk(whole && isAppend(whole), 'a whole document')
    t.match(await stored(), { revision: 24, pending: undefined })
    t.same((await stored()).doc, foldOrder(history))
  },
)
