import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { until } from '../support/progress.ts'
import t, { type Test } from 'tap'
import { decideTrackerUpserts } from '../../shared/domain/orders/upsert-trackers.ts'
import { ordersProjection, trackersProjection } from '../../projectors/all-projections.ts'
import {
  catchUp,
  lanesOf,
  LOOK_AGAIN_MS,
  replayInParts,
  replayPart,
  runProjections,
  viewFiller,
  type PartHelper,
} from '../../projectors/runner.ts'
import type { Projection } from '../../projectors/document-projection.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { createIdGenerator } from '../../shared/infra/id-generator.ts'
import { orderStream } from '../../shared/domain/orders/state.ts'
import { foldOrderState } from '../../shared/domain/orders/state.ts'
import { allCollections, collections, ORDER_FULL_VIEW } from '../../shared/infra/read-store/collections.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { tempDir } from '../support/temp.ts'
import { textOfView } from '../contract/read-store.contract.ts'
import { renderOrder } from '../../projectors/resources/render.ts'
import { Expansion, orderExpandPaths } from '../../projectors/resources/expansion.ts'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'

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

/** A fresh read store in a folder of its own. */
const freshReadStore = (t: Test) =>
  createSqliteReadStore(join(tempDir(t, 'shiplog-runner-'), 'read.db'), allCollections)

/** The backlog, and its orders as one catch-up over the whole log makes them: what every rebuild must equal. */
async function backlogAndWhole(t: Test) {
  const eventStore = await backlog(t)
  const whole = freshReadStore(t)
  await catchUp({ eventStore, readStore: whole }, ordersProjection)
  return { eventStore, wholeOrders: (await allOrders(whole)).docs }
}

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

t.test(
  'in two lanes, the position told is one every projection has committed, and the result is a clean one',
  async (t) => {
    const eventStore = await backlog(t)
    const config = loadConfig({ POLL_INTERVAL_MS: '10' })
    const store = freshReadStore(t)
    const controller = new AbortController()
    const head = await eventStore.head()
    const lanes: ReadStore = { ...store, concurrentCommits: true }
    t.same(
      lanesOf([ordersProjection, trackersProjection], lanes).map((lane) => lane.map((p) => p.name)),
      [['orders'], ['trackers']],
    )
    const told: bigint[] = []
    const behind: string[] = []
    const run = runProjections(
      { eventStore: smallPages(eventStore), readStore: lanes, config },
      [ordersProjection, trackersProjection],
      controller.signal,
      async (position) => {
        told.push(position)
        for (const name of ['orders', 'trackers'])
          if (((await store.checkpoint(name)) ?? 0n) < position) behind.push(`${name} behind ${position}`)
        if (position === head) controller.abort()
      },
    )
    await run
    t.same(behind, [], 'no position told before both lanes committed it')
    t.ok(told.length >= 9, `told ${told.length} times, once a batch of each lane`)
    t.same(
      told,
      [...told].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      'never backwards',
    )
    const clean = freshReadStore(t)
    await catchUp({ eventStore, readStore: clean }, ordersProjection)
    await catchUp({ eventStore, readStore: clean }, trackersProjection)
    t.same((await allOrders(store)).docs, (await allOrders(clean)).docs)
    const trackers = (s: ReadStore) => s.find(collections.trackers.name, { accountId: 7, limit: 1000, where: [] })
    t.same((await trackers(store)).docs, (await trackers(clean)).docs)
  },
)

t.test('a lane that fails stops both; they resume from their checkpoints to a clean result', async (t) => {
  const eventStore = await backlog(t)
  const config = loadConfig({ POLL_INTERVAL_MS: '10' })
  const store = freshReadStore(t)
  let trackerCommits = 0
  const failing: ReadStore = {
    ...store,
    concurrentCommits: true,
    commit: async (projections, writes, checkpoint) => {
      if (projections.includes('trackers') && ++trackerCommits === 3) throw new Error('the database went away')
      await store.commit(projections, writes, checkpoint)
    },
  }
  const rt = { eventStore: smallPages(eventStore), readStore: failing, config }
  await t.rejects(
    runProjections(rt, [ordersProjection, trackersProjection], new AbortController().signal),
    /the database went away/,
    'the run ends with the failure, though nothing aborted it',
  )
  const orders = (await store.checkpoint('orders')) ?? 0n
  const trackers = (await store.checkpoint('trackers')) ?? 0n
  t.ok(orders < (await eventStore.head()), 'the other lane stopped too')
  t.ok(orders - trackers <= 200n, 'a lane is at most a batch ahead of the other (100 events a page, two batches)')
  const controller = new AbortController()
  const head = await eventStore.head()
  await runProjections(
    { ...rt, readStore: { ...store, concurrentCommits: true } },
    [ordersProjection, trackersProjection],
    controller.signal,
    (p) => {
      if (p === head) controller.abort()
    },
  )
  const clean = freshReadStore(t)
  await catchUp({ eventStore, readStore: clean }, ordersProjection)
  t.same((await allOrders(store)).docs, (await allOrders(clean)).docs, 'resumed to a clean result')
})

t.test(
  "a lane that fails on the log's last batch ends the run, though nothing new comes to read",
  // Left to wait for the next batch, the run would hang here.
  { timeout: 10_000 },
  async (t) => {
    const eventStore = await backlog(t)
    const store = freshReadStore(t)
    const head = await eventStore.head()
    const failing: ReadStore = {
      ...store,
      concurrentCommits: true,
      commit: async (projections, writes, checkpoint) => {
        if (projections.includes('trackers') && checkpoint === head) throw new Error('the database went away')
        await store.commit(projections, writes, checkpoint)
      },
    }
    await t.rejects(
      runProjections(
        { eventStore: smallPages(eventStore), readStore: failing, config: loadConfig({ POLL_INTERVAL_MS: '10' }) },
        [ordersProjection, trackersProjection],
        new AbortController().signal,
      ),
      /the database went away/,
    )
    t.equal(await store.checkpoint('orders'), head, 'the other lane finished its batch in hand')
  },
)

t.test("a rebuild's parts share a projection's documents: each keeps its own, all of them together", async (t) => {
  const { eventStore, wholeOrders } = await backlogAndWhole(t)
  const parts = [0, 1, 2].map(() => freshReadStore(t))
  for (const [i, readStore] of parts.entries()) await replayPart({ eventStore, readStore }, ordersProjection, i, 3)
  const kept = await Promise.all(parts.map(async (s) => (await allOrders(s)).docs))
  t.ok(
    kept.every((docs) => docs.length > 50),
    `every part keeps some: ${kept.map((d) => d.length).join(', ')}`,
  )
  const together = kept.flat().sort((a, b) => b.id - a.id)
  t.same(together, wholeOrders, 'together, exactly the whole, each document once')
  t.equal(await parts[0]!.checkpoint('orders'), undefined, 'a part moves no checkpoint')
})

t.test(
  "a rebuild's first replay: the whole log on this thread until its helper is ready, then a part each from there",
  async (t) => {
    const { eventStore, wholeOrders } = await backlogAndWhole(t)
    const head = await eventStore.head()

    const readStore = freshReadStore(t)
    let commits = 0
    const counting: ReadStore = {
      ...readStore,
      commit: async (...args) => {
        await readStore.commit(...args)
        commits++
      },
    }
    const rt = { eventStore: smallPages(eventStore), readStore: counting }
    // A helper that starts up while this thread commits its third batch, and replays part 1 of 2 on the same store.
    const toldAfter: (bigint | undefined)[] = []
    const helper: PartHelper = {
      get ready() {
        return commits >= 3
      },
      replayAfter: (after) => {
        toldAfter.push(after)
        return replayPart(rt, ordersProjection, 1, 2, after)
      },
      cancel: async () => {
        t.fail('a helper that became ready is not cancelled')
      },
    }
    const reached = await replayInParts(rt, ordersProjection, [helper])
    t.equal(toldAfter.length, 1, 'the helper is told once where to start')
    t.ok(toldAfter[0]! > 0n && toldAfter[0]! < head, `handed over part-way: at ${toldAfter[0]} of ${head}`)
    t.same(reached, [head, head], 'both parts reach the end of the log')
    t.same((await allOrders(readStore)).docs, wholeOrders, 'together, exactly the whole')
  },
)

t.test(
  "a rebuild's log that ends before its helper is ready is all this thread's: the helper is cancelled",
  async (t) => {
    const { eventStore, wholeOrders } = await backlogAndWhole(t)
    const readStore = freshReadStore(t)
    let cancelled = 0
    const helper: PartHelper = {
      ready: false,
      replayAfter: async () => {
        t.fail('a helper never ready replays nothing')
        return undefined
      },
      cancel: async () => {
        cancelled++
      },
    }
    const reached = await replayInParts({ eventStore, readStore }, ordersProjection, [helper])
    t.equal(cancelled, 1)
    t.same(reached, [await eventStore.head()])
    t.same((await allOrders(readStore)).docs, wholeOrders)
  },
)

t.test('the orders full view is left out of the writes and rendered once the projector is idle', async (t) => {
  const eventStore = await backlog(t)
  const readStore = createSqliteReadStore(join(tempDir(t, 'shiplog-runner-'), 'read.db'), allCollections)
  t.teardown(() => readStore.close())
  const config = loadConfig({ POLL_INTERVAL_MS: '10' })
  const head = await eventStore.head()
  const fills: number[] = []
  const writtenViews: unknown[] = []
  // Filling waits until the views have been seen missing.
  let openGate = () => {}
  const gate = new Promise<void>((resolve) => {
    openGate = resolve
  })
  const observed: ReadStore = {
    ...readStore,
    commit: async (projections, writes, checkpoint) => {
      writtenViews.push(...writes.map((w) => ('views' in w ? w.views : undefined)))
      return readStore.commit(projections, writes, checkpoint)
    },
    fillViews: async (collection, views) => {
      await gate
      fills.push(views.length)
      return readStore.fillViews(collection, views)
    },
  }
  const controller = new AbortController()
  const caughtUp = new Promise<void>((resolve) =>
    runProjections({ eventStore, readStore: observed, config }, [ordersProjection], controller.signal, (p) => {
      if (p >= head) resolve()
    }),
  )
  await caughtUp
  t.ok(writtenViews.length >= 300, 'every order was written')
  t.ok(
    writtenViews.every((v) => v === undefined),
    'no order is written with its view',
  )
  const page = () => readStore.findView(collections.orders.name, { accountId: 7, limit: 1000 }, ORDER_FULL_VIEW)
  const before = await page()
  t.ok(before.views.length >= 300 && before.views.every((v) => v === null), 'meanwhile every view is missing')
  openGate()
  await until(
    () => readStore.missingViews(collections.orders.name, 1),
    (missing) => missing.length === 0,
  )
  controller.abort()
  t.same(
    fills.filter((n) => n > 0),
    [100, 100, 100],
    'in slices of 100',
  )
  const filled = await page()
  const rendered = (await allOrders(readStore)).docs.map((d) =>
    JSON.stringify(renderOrder(d.doc as OrderDoc, Expansion.full(orderExpandPaths))),
  )
  t.same(filled.views.map(textOfView), rendered, 'each view as the order renders fully expanded')
})

t.test(
  'views are filled whenever the projector and the machine have spare time, else only after a pause or every 2 s',
  async (t) => {
    let clock = 0
    let missing = 2000
    const slices: number[] = []
    const projection = {
      fillViews: async (_store: ReadStore, limit: number) => {
        slices.push(clock)
        const filled = Math.min(limit, missing)
        missing -= filled
        return filled
      },
    } as unknown as Projection
    let spareCore = true
    const filler = viewFiller([projection], {} as ReadStore, () => clock, { open: () => spareCore })
    const batch = (ms: number) => {
      clock += ms
      filler.batchDone(ms)
    }

    // A trickle: a 5 ms batch every 50 ms leaves the projector idle nine tenths of the time.
    for (let i = 0; i < 5; i++) {
      batch(5)
      t.equal(await filler.fill(), true, 'a slice after each small batch, more to come')
      clock += 45
    }
    t.same(slices.length, 5, 'one slice each time the log has nothing new')

    // A bulk load: 60 ms batches back to back, the projector busy all the time.
    slices.length = 0
    for (let i = 0; i < 50; i++) {
      batch(60)
      await filler.fill()
    }
    t.same(
      slices.map((at) => at - slices[0]!),
      [0, 60, 120, 2160],
      'slices until a quarter of the last second went to batches; then one every 2 s',
    )

    // The load stops: a pause of 250 ms, and slices follow one another until none is missing.
    slices.length = 0
    clock += 250
    while (await filler.fill()) {}
    t.equal(missing, 0, 'every view filled after the pause')
    t.equal(await filler.fill(), false, 'nothing to do once none is missing')
    t.equal(slices.length, 12, 'eleven slices of 100 and one that found none; no slice looks again')

    // Another process rebuilds the orders: its documents come without views, and no batch of ours says so.
    missing = 300
    clock += LOOK_AGAIN_MS - 1
    t.equal(await filler.fill(), false, 'idle and told of nothing, the projector does not look at once')
    t.equal(slices.length, 12)
    clock += 1
    while (await filler.fill()) {}
    t.equal(missing, 0, `it looks again after ${LOOK_AGAIN_MS / 1000} s idle, and fills what it finds`)
    t.equal(slices.length, 16, 'three slices of 100 and one that found none')

    // A webhook sender takes the machine's cores while the projector has little to do.
    missing = 1000
    slices.length = 0
    spareCore = false
    for (let i = 0; i < 200; i++) {
      batch(5)
      await filler.fill()
      clock += 45
    }
    t.same(
      slices.map((at) => at - slices[0]!),
      [0, 2000, 4000, 6000],
      'with no core to spare, one slice every 2 s however idle the projector',
    )
    spareCore = true
    batch(5)
    t.equal(await filler.fill(), true, 'a core to spare again: a slice at once')
  },
)

/** The store read through pages of 100, as a slow consumer would. */
const smallPages = (store: ReturnType<typeof createSqliteEventStore>) => ({
  ...store,
  readAll: (o: Parameters<typeof store.readAll>[0]) => store.readAll({ ...o, limit: Math.min(o.limit, 100) }),
})
