import { join } from 'node:path'
import t from 'tap'
import { createStateCache } from '../../commands/state-cache.ts'
import { orderStateBytes } from '../../commands/trackers/upsert.ts'
import { initialFulfillmentFields, initialOrderFields, initialTrackerFields } from '../../shared/domain/orders/state.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { newEvent } from '../support/recorded.ts'
import { tempDir } from '../support/temp.ts'

const event = (n: number) => newEvent('Added', { n })

/** A fold summing the events' `n`, and how many events it has folded (reset by setting `folded`). */
function summing() {
  const sum = {
    folded: 0,
    add: (total: number | undefined, e: { data: unknown }) => {
      sum.folded++
      return (total ?? 0) + (e.data as { n: number }).n
    },
  }
  return sum
}

t.test('the state cache reads only what it has not folded, including other writers’ events', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-cache-'), 'events.db'))
  t.teardown(() => store.close())
  const sum = summing()
  const sums = createStateCache<number>(sum.add, 10)
  t.same(await sums.loadMany(store, ['sum-1']), [{ state: undefined, revision: -1, position: 0n, readBack: 0 }])

  const first = await store.append([{ stream: 'sum-1', expected: 'no_stream', events: [event(1), event(2)] }])
  t.match(await sums.loadMany(store, ['sum-1']), [{ state: 3, revision: 1 }])
  t.equal(sum.folded, 2)

  // What this process appends it remembers without reading back.
  const ours = await store.append([{ stream: 'sum-1', expected: 1, events: [event(10)] }])
  const ourAppend = { stream: 'sum-1', expected: 1, events: [] }
  const untouched = { stream: 'sum-2', expected: 'no_stream' as const, events: [] }
  // A stream the append left out (nothing to append) is not remembered.
  sums.appended(
    [
      { state: 13, append: ourAppend },
      { state: 7, append: untouched },
    ],
    new Map([['sum-1', ours.revisions[0]!]]),
    ours.position,
  )
  // Another writer appends: only its event is read and folded on top.
  await store.append([{ stream: 'sum-1', expected: 2, events: [event(100)] }])
  await store.append([{ stream: 'sum-2', expected: 'no_stream', events: [event(5)] }])
  t.match(await sums.loadMany(store, ['sum-2', 'sum-1', 'sum-3']), [
    { state: 5, revision: 0 },
    { state: 113, revision: 3 },
    { state: undefined, revision: -1 },
  ])
  t.equal(sum.folded, 4, 'one more event folded on sum-1, not four, and the one of sum-2')
  t.ok(first.position > 0n)
})

t.test('a stream is remembered from its second command on, not when an append creates it', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-cache-'), 'events.db'))
  t.teardown(() => store.close())
  const sum = summing()
  const sums = createStateCache<number>(sum.add, 10)
  t.match(await sums.loadMany(store, ['sum-1']), [{ state: undefined, revision: -1 }])
  const created = { stream: 'sum-1', expected: 'no_stream' as const, events: [event(1), event(2)] }
  const first = await store.append([created])
  sums.appended([{ state: 3, append: created }], new Map([['sum-1', first.revisions[0]!]]), first.position)

  t.match(await sums.loadMany(store, ['sum-1']), [{ state: 3, revision: 1, readBack: 2 }])
  t.equal(sum.folded, 2, 'the created stream was read back: a bulk import leaves the cache to the streams in use')

  const updated = { stream: 'sum-1', expected: 1, events: [event(10)] }
  const second = await store.append([updated])
  sums.appended([{ state: 13, append: updated }], new Map([['sum-1', second.revisions[0]!]]), second.position)
  sum.folded = 0
  t.match(await sums.loadMany(store, ['sum-1']), [{ state: 13, revision: 2, readBack: 0 }])
  t.equal(sum.folded, 0, 'from its second command on, what this process appends it remembers')
})

t.test(
  'the state cache remembers at most its size, the most recently loaded first; size 0 remembers nothing',
  async (t) => {
    const store = createSqliteEventStore(join(tempDir(t, 'shiplog-cache-'), 'events.db'))
    t.teardown(() => store.close())
    await store.append(
      ['a', 'b'].map((stream) => ({ stream, expected: 'no_stream' as const, events: [event(1), event(2)] })),
    )
    for (const [size, refolded] of [
      [2, 0],
      [1, 2],
      [0, 2],
    ] as const) {
      const sum = summing()
      const sums = createStateCache<number>(sum.add, size)
      await sums.loadMany(store, ['a'])
      await sums.loadMany(store, ['b'])
      sum.folded = 0
      t.match(await sums.loadMany(store, ['a']), [{ state: 3, revision: 1 }])
      t.equal(sum.folded, refolded, `size ${size}: 'a' ${refolded ? 'read and folded again' : 'remembered'}`)
    }
  },
)

t.test('the state cache forgets the stream least recently loaded, not the one remembered first', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-cache-'), 'events.db'))
  t.teardown(() => store.close())
  await store.append(['a', 'b', 'c'].map((stream) => ({ stream, expected: 'no_stream' as const, events: [event(1)] })))
  const folds: string[] = []
  let stream = ''
  const sums = createStateCache<number>((sum, e) => {
    folds.push(stream)
    return (sum ?? 0) + (e.data as { n: number }).n
  }, 2)
  const load = async (s: string) => {
    stream = s
    await sums.loadMany(store, [s])
  }
  for (const s of ['a', 'b', 'a', 'c']) await load(s)
  t.same(folds, ['a', 'b', 'c'], "'a' loaded again is remembered")
  await load('a')
  await load('b')
  t.same(folds, ['a', 'b', 'c', 'b'], "'b', least recently loaded, made room for 'c'")
})

t.test(
  'a load that read many events back has the next append keep a snapshot, which later loads start from',
  async (t) => {
    const store = createSqliteEventStore(join(tempDir(t, 'shiplog-cache-'), 'events.db'))
    t.teardown(() => store.close())
    const sum = summing()
    // Remembering nothing, as after a restart or for orders beyond the cache's size.
    const sums = createStateCache<number>(sum.add, 0, { version: 's1', readBack: 3 })
    await store.append([{ stream: 'sum-1', expected: 'no_stream', events: [event(1), event(2)] }])

    const [short] = await sums.loadMany(store, ['sum-1'])
    const shortAppend = { stream: 'sum-1', expected: 1, events: [event(3)] }
    t.equal(sums.appendOf(short!, 6, shortAppend), shortAppend, 'two events read back: no snapshot')
    await store.append([shortAppend])

    const [long] = await sums.loadMany(store, ['sum-1'])
    t.match(long, { state: 6, revision: 2, readBack: 3 })
    const append = sums.appendOf(long!, 10, { stream: 'sum-1', expected: 2, events: [event(4)] })
    t.same(append.snapshot, { version: 's1', state: 10 }, 'three read back: the append carries the state it leads to')
    t.equal(
      sums.appendOf(long!, 10, { stream: 'sum-1', expected: 2, events: [] }).snapshot,
      undefined,
      'nothing to append',
    )
    await store.append([append])

    sum.folded = 0
    t.match(await sums.loadMany(store, ['sum-1']), [{ state: 10, revision: 3, readBack: 0 }])
    t.equal(sum.folded, 0, 'loaded from the snapshot, nothing folded')
    await store.append([{ stream: 'sum-1', expected: 3, events: [event(100)] }])
    t.match(await sums.loadMany(store, ['sum-1']), [{ state: 110, revision: 4, readBack: 1 }])
    t.equal(sum.folded, 1, 'only the event after the snapshot')

    sum.folded = 0
    const otherVersion = createStateCache<number>(sum.add, 0, { version: 's2', readBack: 3 })
    t.match(await otherVersion.loadMany(store, ['sum-1']), [{ state: 110, revision: 4 }])
    t.equal(sum.folded, 5, "another version's snapshot is ignored: the stream is folded from its start")
  },
)

t.test('a bound on bytes forgets the least recently loaded, and a state larger than it is not kept', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-cache-'), 'events.db'))
  t.teardown(() => store.close())
  const sizes = { a: 10, b: 10, c: 45, d: 100 }
  await store.append(
    Object.entries(sizes).map(([stream, n]) => ({ stream, expected: 'no_stream' as const, events: [event(n)] })),
  )
  const folds: string[] = []
  let stream = ''
  // Each state's size is its sum: 60 bytes hold 'a' and 'b' with 'c', not all three.
  const sums = createStateCache<number>(
    (sum, e) => {
      folds.push(stream)
      return (sum ?? 0) + (e.data as { n: number }).n
    },
    10,
    undefined,
    { max: 60, of: (sum) => sum },
  )
  const load = async (s: string) => {
    stream = s
    await sums.loadMany(store, [s])
  }
  for (const s of ['a', 'b', 'b', 'c', 'c']) await load(s)
  t.same(folds, ['a', 'b', 'c'], "'a', 'b' and 'c' fit one at a time")
  await load('b')
  await load('a')
  t.same(folds, ['a', 'b', 'c', 'a'], "'a', least recently loaded, made room for 'c'")
  await load('c')
  t.same(folds, ['a', 'b', 'c', 'a', 'c'], "and 'c' for 'a'")
  await load('d')
  await load('d')
  t.same(folds, ['a', 'b', 'c', 'a', 'c', 'd', 'd'], "'d', larger than the whole bound, is never kept")
})

t.test('an order counts for more with each tracker, carrier event and byte of merchant data', async (t) => {
  const tracker = (id: number, events: number) => ({
    id,
    fulfillment_id: id + 1000,
    tracking_number: `TN-${id}`,
    fields: { ...initialTrackerFields },
    status_at: null,
    event_ids: Array.from({ length: events }, (_, i) => [`key-${i}`, i] as const),
    notified: [],
    origin_at: null,
    failed_attempt: false,
    exception: false,
    created_at: 0,
    last_scan_at: null,
    delay: null,
    delay_notified: false,
    delay_handled: false,
    delay_check_at: null,
  })
  const order = (trackers: number, events: number, custom_variables: Record<string, unknown> | null = null) => ({
    id: 1,
    order_number: 'O-1',
    fields: { ...initialOrderFields, custom_variables },
    fulfillments: Array.from({ length: trackers }, (_, i) => ({
      id: i + 1000,
      merchant_id: `TN-${i}`,
      fields: initialFulfillmentFields('shipped'),
    })),
    trackers: Array.from({ length: trackers }, (_, i) => tracker(i, events)),
    notified: [],
  })
  const scanned = orderStateBytes(order(1, 6))
  t.ok(scanned > 1500 && scanned < 3000, `a one-tracker order after six scans: ${scanned} bytes, about 2 KB`)
  t.ok(orderStateBytes(order(1, 7)) > scanned, 'a carrier event more')
  t.ok(orderStateBytes(order(2, 6)) > scanned + 500, 'a tracker more')
  const notes = { note: 'x'.repeat(10_000) }
  t.ok(orderStateBytes(order(1, 6, notes)) > scanned + 10_000, 'ten thousand characters of custom variables')
})
