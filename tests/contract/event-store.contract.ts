import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import type { EventStore, NewEvent } from '../../shared/infra/event-store/port.ts'
import { subscribeToAll } from '../../shared/infra/event-store/subscribe.ts'
import { ConcurrencyError } from '../../shared/domain/errors.ts'

const event = (type = 'Thing', data: unknown = { n: 1 }): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { accountId: 1, correlationId: 'test', recordedAt: Date.now() },
})

/** Streams unique per run, so the suite can run against a shared server. */
const uniqueStream = (name: string) => `${name}-${randomUUID().replaceAll('-', '')}`

/** The EventStore contract: every adapter must pass all of it. */
export function eventStoreContract(t: Test, open: () => Promise<EventStore>) {
  let store: EventStore
  t.before(async () => {
    store = await open()
  })
  t.teardown(async () => store.close())

  t.test('appends and reads a stream in revision order', async (t) => {
    const s = uniqueStream('thing')
    const r1 = await store.append([{ stream: s, expected: 'no_stream', events: [event('A'), event('B')] }])
    t.same(r1.revisions, [1])
    const r2 = await store.append([{ stream: s, expected: 1, events: [event('C')] }])
    t.same(r2.revisions, [2])
    t.ok(r2.position > r1.position, 'positions grow')
    const read = await store.readStream(s)
    t.same(
      read.map((e) => [e.type, e.revision]),
      [
        ['A', 0],
        ['B', 1],
        ['C', 2],
      ],
    )
    t.equal(read[0]!.stream, s)
    t.same(read[0]!.data, { n: 1 })
    t.equal(read[0]!.metadata.accountId, 1)
    t.same(await store.readStream(uniqueStream('missing')), [], 'a missing stream reads empty')
    t.same(
      (await store.readStream(s, 1)).map((e) => e.type),
      ['B', 'C'],
      'from a revision',
    )
    t.same(await store.readStream(s, 3), [], 'past the end')
  })

  t.test('data and metadata of any text read back as written, on every read', async (t) => {
    const odd = 'tab\tline\nreturn\rslash\\ quote" sep\x1e nul\u0000 é 🚚 \u2028'
    const s = uniqueStream(`odd\\${'_'}`)
    const written = {
      ...event('Odd', { odd, nested: [odd, { [odd]: odd }] }),
      metadata: { accountId: 1, correlationId: odd, recordedAt: 1 },
    }
    const { position } = await store.append([{ stream: s, expected: 'no_stream', events: [written, event('Plain')] }])
    const [byStream] = await store.readStreams([{ stream: s }])
    const byLog = await store.readAll({ after: position - 2n, limit: 10 })
    for (const [read, where] of [
      [(await store.readStream(s))[0], 'its stream'],
      [byStream?.[0], 'several streams'],
      [byLog.find((e) => e.stream === s), 'the log'],
    ] as const) {
      t.same(read?.data, written.data, `data, from ${where}`)
      t.equal(read?.metadata.correlationId, odd, `metadata, from ${where}`)
    }
  })

  t.test('reads several streams at once, each from its revision, in request order', async (t) => {
    const [a, b, missing] = [uniqueStream('thing'), uniqueStream('thing'), uniqueStream('missing')]
    await store.append([
      { stream: a, expected: 'no_stream', events: [event('A'), event('B'), event('C')] },
      { stream: b, expected: 'no_stream', events: [event('D')] },
    ])
    const read = await store.readStreams([
      { stream: b },
      { stream: missing },
      { stream: a, fromRevision: 1 },
      { stream: b, fromRevision: 1 },
    ])
    t.same(
      read.map((events) => events.map((e) => [e.stream, e.type, e.revision])),
      [
        [[b, 'D', 0]],
        [],
        [
          [a, 'B', 1],
          [a, 'C', 2],
        ],
        [],
      ],
    )
    t.same(read[2]![0]!.data, { n: 1 })
    t.same(await store.readStreams([]), [])
    const toFold = await store.readStreamsToFold([{ stream: a, fromRevision: 1 }, { stream: missing }, { stream: b }])
    t.same(
      toFold.map((events) => events.map((e) => [e.type, e.revision, e.position, e.data])),
      [read[2]!, [], read[0]!].map((events) => events.map((e) => [e.type, e.revision, e.position, e.data])),
      'to fold: the same events, type, revision, position and data',
    )
  })

  t.test('a snapshot rides on its append: the latest of a version, where the store keeps them', async (t) => {
    const [s, other] = [uniqueStream('thing'), uniqueStream('thing')]
    const first = await store.append([
      {
        stream: s,
        expected: 'no_stream',
        events: [event('A'), event('B')],
        snapshot: { version: 'v1', state: { n: 2 } },
      },
      { stream: other, expected: 'any', events: [event('A')], snapshot: { version: 'v1', state: { n: 1 } } },
    ])
    const stored = await store.readStream(s)
    t.same(
      stored.map((e) => e.type),
      ['A', 'B'],
      'the events are appended as without a snapshot',
    )
    t.ok(first.position > stored[1]!.position)
    if (!store.readSnapshots) {
      t.pass(`${store.kind} keeps no snapshots: a fold reads each stream from its start`)
      return
    }
    const missing = uniqueStream('missing')
    t.same(
      await store.readSnapshots([missing, s, other], 'v1'),
      [undefined, { revision: 1, position: stored[1]!.position, state: { n: 2 } }, undefined],
      "a stream's snapshot is at its last event; none with expected `any`, which the state may not match",
    )
    t.same(await store.readSnapshots([s], 'v2'), [undefined], 'another version is not this one')
    await store.append([{ stream: s, expected: 1, events: [event('C')] }])
    const later = await store.append([
      { stream: s, expected: 2, events: [event('D')], snapshot: { version: 'v1', state: { n: 4 } } },
    ])
    t.same(await store.readSnapshots([s], 'v1'), [{ revision: 3, position: later.position, state: { n: 4 } }])
    await t.rejects(
      store.append([{ stream: s, expected: 1, events: [event('E')], snapshot: { version: 'v1', state: { n: 9 } } }]),
      ConcurrencyError,
    )
    t.same(
      await store.readSnapshots([s], 'v1'),
      [{ revision: 3, position: later.position, state: { n: 4 } }],
      'a conflicting append leaves the snapshot as it was',
    )
    t.same(await store.readSnapshots([], 'v1'), [])
  })

  t.test('a concurrency conflict is reported and nothing is written', async (t) => {
    const s = uniqueStream('thing')
    const other = uniqueStream('thing')
    await store.append([{ stream: s, expected: 'no_stream', events: [event()] }])
    for (const expected of [5, 'no_stream'] as const) {
      await t.rejects(
        store.append([
          { stream: other, expected: 'no_stream', events: [event()] },
          { stream: s, expected, events: [event()] },
        ]),
        ConcurrencyError,
        `expected ${expected} on an existing stream is a conflict`,
      )
    }
    await t.rejects(
      store.append([{ stream: uniqueStream('thing'), expected: 'stream_exists', events: [event()] }]),
      ConcurrencyError,
    )
    t.equal((await store.readStream(s)).length, 1, 'the conflicting stream is unchanged')
    t.equal((await store.readStream(other)).length, 0, 'the other stream of the same append is not written')
    const any = await store.append([{ stream: s, expected: 'any', events: [event()] }])
    t.same(any.revisions, [1], 'any always appends')
  })

  t.test('appends asked for at once each stand or fall alone, whole', async (t) => {
    const [a, b, c] = [uniqueStream('thing'), uniqueStream('thing'), uniqueStream('thing')]
    await store.append([{ stream: b, expected: 'no_stream', events: [event()] }])
    // Asked for in one turn: the embedded store commits them together.
    const outcomes = await Promise.allSettled([
      store.append([{ stream: a, expected: 'no_stream', events: [event('A1'), event('A2')] }]),
      store.append([
        { stream: c, expected: 'no_stream', events: [event()] },
        { stream: b, expected: 7, events: [event()] },
      ]),
      store.append([{ stream: b, expected: 0, events: [event('B2')] }]),
      store.append([{ stream: a, expected: 'no_stream', events: [event('A3')] }]),
    ])
    t.same(
      [outcomes[1].status, outcomes[2].status],
      ['rejected', 'fulfilled'],
      'a conflict fails; the append after it to the same stream is stored',
    )
    for (const o of outcomes)
      if (o.status === 'rejected') t.ok(o.reason instanceof ConcurrencyError, 'a conflict is a ConcurrencyError')
    const won = outcomes[0].status === 'fulfilled' ? ['A1', 'A2'] : ['A3']
    t.not(outcomes[0].status, outcomes[3].status, 'of two appends making one stream, one wins')
    t.same(
      (await store.readStream(a)).map((e) => e.type),
      won,
      'the stream holds the winner whole and nothing of the other',
    )
    t.equal((await store.readStream(b)).length, 2, 'the stream behind a failed append takes the next')
    t.equal((await store.readStream(c)).length, 0, 'nothing of a failed append is written, not even its other stream')
    const positions = (await store.readStreams([{ stream: a }, { stream: b }])).flat().map((e) => e.position)
    t.equal(new Set(positions).size, positions.length, 'every stored event has a position of its own')
  })

  t.test('appends asked for at once each answer with their own revisions and last position', async (t) => {
    const [a, b, c, d] = [uniqueStream('thing'), uniqueStream('thing'), uniqueStream('thing'), uniqueStream('thing')]
    await store.append([
      { stream: b, expected: 'no_stream', events: [event('B1')] },
      { stream: d, expected: 'no_stream', events: [event('D1'), event('D2')] },
    ])
    const [first, second] = await Promise.all([
      store.append([
        { stream: a, expected: 'no_stream', events: [event('A1'), event('A2')] },
        { stream: b, expected: 0, events: [event('B2')] },
      ]),
      store.append([
        { stream: c, expected: 'no_stream', events: [event('C1')] },
        { stream: d, expected: 'any', events: [] },
      ]),
    ])
    t.same(first.revisions, [1, 1], 'the first append’s streams, at their new revisions')
    t.same(second.revisions, [0, 1], 'the second’s, an empty append to a stream at the revision it found')
    const [ofA, ofB, ofC] = await store.readStreams([{ stream: a }, { stream: b }, { stream: c }])
    const lastOf = (events: readonly { position: bigint }[] | undefined) => events!.at(-1)!.position
    t.equal(first.position, lastOf(ofA) > lastOf(ofB) ? lastOf(ofA) : lastOf(ofB))
    t.equal(second.position, lastOf(ofC), 'each is told the position of its own last event')
  })

  t.test('a retried append with the same event ids writes nothing new', async (t) => {
    const s = uniqueStream('thing')
    const events = [event('A'), event('B')]
    const first = await store.append([{ stream: s, expected: 'no_stream', events }])
    const retry = await store.append([{ stream: s, expected: 'no_stream', events }])
    t.same(retry.revisions, first.revisions)
    t.equal((await store.readStream(s)).length, 2)
  })

  t.test('the global order is total and a page continues after the last position', async (t) => {
    const start = await store.head()
    const a = uniqueStream('thing')
    const b = uniqueStream('thing')
    await store.append([{ stream: a, expected: 'any', events: [event('A1')] }])
    await store.append([{ stream: b, expected: 'any', events: [event('B1')] }])
    await store.append([{ stream: a, expected: 'any', events: [event('A2')] }])
    const all = (await store.readAll({ after: start, limit: 1000 })).filter((e) => e.stream === a || e.stream === b)
    t.same(
      all.map((e) => e.type),
      ['A1', 'B1', 'A2'],
    )
    for (let i = 1; i < all.length; i++) t.ok(all[i]!.position > all[i - 1]!.position, 'strictly increasing')
    const next = await store.readAll({ after: all[0]!.position, limit: 1000 })
    t.notOk(
      next.some((e) => e.position <= all[0]!.position),
      'after is exclusive',
    )
    t.ok(next.some((e) => e.id === all[1]!.id))
    const typed = await store.readAll({ after: start, limit: 1000, types: ['B1'] })
    t.same(
      typed.filter((e) => e.stream === b).map((e) => e.type),
      ['B1'],
      'type filter',
    )
    t.ok(typed.every((e) => e.type === 'B1'))
  })

  t.test(
    'an append’s events for one stream follow one another in the log, appends asked for at once too',
    async (t) => {
      const start = await store.head()
      const [s, other, third] = [uniqueStream('thing'), uniqueStream('thing'), uniqueStream('thing')]
      await Promise.all([
        store.append([
          { stream: s, expected: 'no_stream', events: [event('A'), event('B'), event('C')] },
          { stream: other, expected: 'no_stream', events: [event('D'), event('E')] },
        ]),
        store.append([{ stream: third, expected: 'no_stream', events: [event('F'), event('G')] }]),
      ])
      const log = (await store.readAll({ after: start, limit: 1000 })).map((e) => e.stream)
      for (const [stream, count] of [
        [s, 3],
        [other, 2],
        [third, 2],
      ] as const) {
        const first = log.indexOf(stream)
        t.same(log.slice(first, first + count), Array(count).fill(stream), `${count} of one stream in a row`)
      }
    },
  )

  t.test('the events of one append keep their own ids, revisions and positions wherever a read starts', async (t) => {
    const start = await store.head()
    const s = uniqueStream('thing')
    const other = uniqueStream('thing')
    const events = [event('A', { n: 'a' }), event('B', { n: 'b' }), event('C', { n: 'c' })]
    await store.append([
      { stream: s, expected: 'no_stream', events },
      { stream: other, expected: 'no_stream', events: [event('D'), event('E')] },
    ])
    const read = await store.readStream(s)
    t.same(
      read.map((e) => [e.id, e.type, e.revision, e.data]),
      events.map((e, i) => [e.id, e.type, i, e.data]),
    )
    for (let i = 1; i < read.length; i++) t.ok(read[i]!.position > read[i - 1]!.position, 'a position each')
    t.same(
      (await store.readStream(s, 1)).map((e) => e.id),
      [events[1]!.id, events[2]!.id],
      'a stream read from the middle of an append',
    )
    const [folded] = await store.readStreamsToFold([{ stream: s, fromRevision: 2 }])
    t.same(
      folded!.map((e) => [e.type, e.revision, e.position, e.data]),
      [['C', 2, read[2]!.position, { n: 'c' }]],
      'a fold from the middle of an append',
    )
    const mine = <E extends { stream: string }>(page: E[]) => page.filter((e) => e.stream === s || e.stream === other)
    const page = mine(await store.readAll({ after: read[0]!.position, limit: 1000 }))
    t.same(
      page.map((e) => e.type),
      ['B', 'C', 'D', 'E'],
      'the log read from the middle of an append',
    )
    const [first, second] = [
      await store.readAll({ after: start, limit: 2 }),
      await store.readAll({ after: read[1]!.position, limit: 2 }),
    ]
    t.same(
      mine(first).map((e) => e.type),
      ['A', 'B'],
      'a page ends inside an append',
    )
    t.same(
      mine(second).map((e) => e.type),
      ['C', 'D'],
      'the next page goes on inside it',
    )
    t.same(
      mine(await store.readAll({ after: start, limit: 1000, types: ['E', 'B'] })).map((e) => e.type),
      ['B', 'E'],
      'the type filter looks inside appends',
    )
    t.same(
      mine(await store.readAll({ after: start, limit: 1, types: ['E'] })).map((e) => e.type),
      ['E'],
      'a page of one type skips the appends without it',
    )
    const widgets = uniqueStream('widgets')
    const widgetsAt = await store.head()
    await store.append([
      {
        stream: widgets,
        expected: 'no_stream',
        events: [event('WidgetMade'), event('WidgetBroken'), event('WidgetSold')],
      },
    ])
    t.same(
      (await store.readAll({ after: widgetsAt, limit: 1000, types: ['WidgetSold', 'WidgetMade'] }))
        .filter((e) => e.stream === widgets)
        .map((e) => e.type),
      ['WidgetMade', 'WidgetSold'],
      'types sharing a beginning: their events, and not another type that shares it',
    )
    const retry = await store.append([{ stream: s, expected: 'no_stream', events }])
    t.same(retry.revisions, [2], 'a retry of the append answers where it is')
    t.equal(retry.position, read[2]!.position)
    t.equal((await store.readStream(s)).length, 3, 'and writes nothing')
    await t.rejects(
      store.append([{ stream: s, expected: 'no_stream', events: [events[0]!, event('X')] }]),
      ConcurrencyError,
      'a retry that is not the same events is a conflict',
    )
  })

  t.test('a subscription from a checkpoint delivers exactly the later events, in order, then live ones', async (t) => {
    const s = uniqueStream('sub')
    await store.append([{ stream: s, expected: 'any', events: [event('Before')] }])
    const checkpoint = await store.head()
    await store.append([{ stream: s, expected: 'any', events: [event('After1'), event('After2')] }])
    const controller = new AbortController()
    const seen: string[] = []
    const done = (async () => {
      for await (const batch of subscribeToAll(store, {
        after: checkpoint,
        pollMs: 20,
        signal: controller.signal,
        types: ['After1', 'After2', 'Live'],
      })) {
        for (const e of batch) if (e.stream === s) seen.push(e.type)
        if (seen.length >= 3) controller.abort()
      }
    })()
    await new Promise((r) => setTimeout(r, 50))
    await store.append([{ stream: s, expected: 'any', events: [event('Live')] }])
    await done
    t.same(seen, ['After1', 'After2', 'Live'])
  })
}
