import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { decideTrackerUpserts } from '../../shared/domain/orders/upsert-trackers.ts'
import { ordersProjection } from '../../projectors/projections.ts'
import { catchUp, replayPart, runProjections } from '../../projectors/runner.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { createIdGenerator } from '../../shared/infra/ids.ts'
import { orderStream } from '../../shared/domain/orders/state.ts'
import { foldOrderState } from '../../shared/domain/orders/state.ts'
import { allCollections, collections } from '../../shared/infra/read-store/collections.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { tempDir } from '../support/temp.ts'

/** A backlog: 300 orders of account 7, each written in three appends (create, then two updates). */
async function backlog(t: Test) {
  const eventStore = createSqliteEventStore(join(tempDir(t, 'shiplog-runner-'), 'events.db'))
  t.teardown(() => eventStore.close())
  const ids = createIdGenerator(0)
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
  return eventStore
}

const allOrders = (s: ReadStore) => s.find(collections.orders.name, { accountId: 7, limit: 1000, where: [] })

t.test('a runner killed part-way through a backlog resumes to exactly a clean rebuild', async (t) => {
  const eventStore = await backlog(t)
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
  const [a, b] = [await allOrders(interrupted), await allOrders(clean)]
  t.equal(a.docs.length, 300)
  t.same(a.docs, b.docs, 'same documents, same revisions')
  t.ok(a.docs.every((d) => d.revision === (b.docs.find((x) => x.key === d.key)?.revision ?? -1)))
  t.ok(
    a.docs.every((d) => (d.doc as { email: string }).email === 'r2@x.io'),
    'no update missed',
  )
  // Each round changes the orders' e-mail, an indexed field, in documents already stored.
  const byEmail = async (email: string) =>
    (
      await interrupted.find(collections.orders.name, {
        accountId: 7,
        limit: 1000,
        where: [{ field: 'email', op: 'eq', value: email }],
      })
    ).docs.length
  t.same([await byEmail('r2@x.io'), await byEmail('r0@x.io')], [300, 0], 'found by the latest e-mail only')
})

t.test("a rebuild's parts share a projection's documents: each keeps its own, all of them together", async (t) => {
  const eventStore = await backlog(t)
  const whole = createSqliteReadStore(join(tempDir(t, 'shiplog-runner-'), 'read.db'), allCollections)
  await catchUp({ eventStore, readStore: whole }, ordersProjection)
  const parts = [0, 1, 2].map(() =>
    createSqliteReadStore(join(tempDir(t, 'shiplog-runner-'), 'read.db'), allCollections),
  )
  for (const [i, readStore] of parts.entries()) await replayPart({ eventStore, readStore }, ordersProjection, i, 3)
  const kept = await Promise.all(parts.map(async (s) => (await allOrders(s)).docs))
  t.ok(
    kept.every((docs) => docs.length > 50),
    `every part keeps some: ${kept.map((d) => d.length).join(', ')}`,
  )
  const together = kept.flat().sort((a, b) => b.id - a.id)
  t.same(together, (await allOrders(whole)).docs, 'together, exactly the whole, each document once')
  t.equal(await parts[0]!.checkpoint('orders'), undefined, 'a part moves no checkpoint')
})

/** The store read through pages of 100, as a slow consumer would. */
const smallPages = (store: ReturnType<typeof createSqliteEventStore>) => ({
  ...store,
  readAll: (o: Parameters<typeof store.readAll>[0]) => store.readAll({ ...o, limit: Math.min(o.limit, 100) }),
})
