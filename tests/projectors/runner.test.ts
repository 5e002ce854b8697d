import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import t from 'tap'
import { decideTrackerUpserts } from '../../shared/domain/orders/upsert-trackers.ts'
import { ordersProjection } from '../../projectors/projections.ts'
import { catchUp, runProjections } from '../../projectors/runner.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { createIdGenerator } from '../../shared/infra/ids.ts'
import { orderStream } from '../../shared/domain/orders/state.ts'
import { foldOrderState } from '../../shared/domain/orders/state.ts'
import { allCollections, collections } from '../../shared/infra/read-store/collections.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { tempDir } from '../support/temp.ts'

t.test('a runner killed part-way through a backlog resumes to exactly a clean rebuild', async (t) => {
  const eventStore = createSqliteEventStore(join(tempDir(t, 'shiplog-runner-'), 'events.db'))
  const ids = createIdGenerator(0)
  // A backlog: 300 orders, each written in three appends (create, then two updates).
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 300; i++) {
      const stream = orderStream(7, `o-${i}`)
      const history = await eventStore.readStream(stream)
      const { events } = decideTrackerUpserts(
        {
          items: [
            { order_number: `o-${i}`, tracking_number: `t-${i}`, email: `r${round}@x.io`, custom_variables: { round } },
          ],
          now: 1_800_000_000 + round,
          accountLanguage: 'en',
          ids,
        },
        foldOrderState(history as never),
      )
      await eventStore.append([
        {
          stream,
          expected: history.length ? history.length - 1 : 'no_stream',
          events: events.map((e) => ({
            id: randomUUID(),
            ...e,
            metadata: { accountId: 7, correlationId: 't', recordedAt: 0 },
          })),
        },
      ])
    }
  }
  const config = loadConfig({ POLL_INTERVAL_MS: '10' })
  const interrupted = createSqliteReadStore(join(tempDir(t, 'shiplog-runner-'), 'read.db'), allCollections)
  // Kill the runner after it has committed some batches: small batches make several commits.
  const controller = new AbortController()
  let batches = 0
  const counting: ReadStore = {
    ...interrupted,
    commit: async (...args) => {
      await interrupted.commit(...args)
      if (++batches === 3) controller.abort()
    },
  }
  await runProjections(
    { eventStore: smallPages(eventStore), readStore: counting, config },
    [ordersProjection],
    controller.signal,
  )
  const stoppedAt = await interrupted.checkpoint('orders')
  t.ok(stoppedAt && stoppedAt < (await eventStore.head()), 'stopped part-way')
  // Restart from the checkpoint to the end.
  await catchUp({ eventStore, readStore: interrupted }, ordersProjection)

  const clean = createSqliteReadStore(join(tempDir(t, 'shiplog-runner-'), 'read.db'), allCollections)
  await catchUp({ eventStore, readStore: clean }, ordersProjection)
  const all = (s: ReadStore) => s.find(collections.orders.name, { accountId: 7, limit: 100, where: [] })
  const [a, b] = [await all(interrupted), await all(clean)]
  t.equal(a.docs.length, 100)
  t.same(a.docs, b.docs, 'same documents, same revisions')
  t.ok(a.docs.every((d) => d.revision === (b.docs.find((x) => x.key === d.key)?.revision ?? -1)))
  t.ok(
    a.docs.every((d) => (d.doc as { email: string }).email === 'r2@x.io'),
    'no update missed',
  )
  await eventStore.close()
})

/** The store read through pages of 100, as a slow consumer would. */
const smallPages = (store: ReturnType<typeof createSqliteEventStore>) => ({
  ...store,
  readAll: (o: Parameters<typeof store.readAll>[0]) => store.readAll({ ...o, limit: Math.min(o.limit, 100) }),
})
