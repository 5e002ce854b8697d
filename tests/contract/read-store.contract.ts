import type { Test } from 'tap'
import type {
  CollectionSpec,
  DocumentAppend,
  DocumentWrite,
  PendingEvent,
  ReadStore,
  ViewBytes,
} from '../../shared/infra/read-store/port.ts'

/** The collection the contract writes to; every adapter must create it from this spec. */
export const contractCollection = {
  name: 'contract_docs',
  fields: { email: 'text', created_at: 'integer' },
  lookupFields: ['email'],
  sweptValues: { email: 'waiting' },
  views: ['card'],
} as const satisfies CollectionSpec

/** The same, with documents large enough to be kept compressed where the store does not compress on its own. */
export const contractCompressed = {
  ...contractCollection,
  name: 'contract_large',
  compressed: true,
} as const satisfies CollectionSpec

/** The same, its views rendered when the projector is idle. */
export const contractViewsWhenIdle = {
  ...contractCompressed,
  name: 'contract_idle_views',
  viewsWhenIdle: true,
} as const satisfies CollectionSpec

/** The same, keeping the events appended to a document (each adds its `n` to the document's `sum`) where the store can. */
export const contractPending = {
  ...contractViewsWhenIdle,
  name: 'contract_pending',
  pending: {
    fold: (doc, events) => {
      const { sum, ...rest } = (doc ?? { sum: 0 }) as { sum: number }
      return { ...rest, sum: events.reduce((total, e) => total + (e.data as { n: number }).n, sum) }
    },
  },
} as const satisfies CollectionSpec

/** Every collection the contract uses. */
export const contractCollections: CollectionSpec[] = [
  contractCollection,
  contractCompressed,
  contractViewsWhenIdle,
  contractPending,
]

/** A view's text, as it would be copied into an answer: at an offset inside a larger buffer. */
export function textOfView(view: ViewBytes | null) {
  if (view === null) return null
  const answer = Buffer.alloc(view.byteLength + 20, '#')
  view.copyTo(answer, 10)
  if (
    answer.subarray(0, 10).toString() !== '#'.repeat(10) ||
    answer.subarray(10 + view.byteLength).toString() !== '#'.repeat(10)
  ) {
    throw new Error('a view wrote outside its bytes')
  }
  return answer.subarray(10, 10 + view.byteLength).toString()
}

let streams = 0
const write = (
  accountId: number,
  id: number,
  fields: { email?: string; created_at?: number } = {},
  revision = 0,
): DocumentWrite => ({
  collection: contractCollection.name,
  key: `doc-${accountId}_${id}_${++streams}`,
  accountId,
  id,
  revision,
  doc: { id, ...fields },
  fields: { email: fields.email ?? null, created_at: fields.created_at ?? null },
})

/** The ReadStore contract: every adapter must pass all of it. `open` gives an empty store. */
export function readStoreContract(t: Test, open: () => Promise<ReadStore>) {
  let store: ReadStore
  t.beforeEach(async () => {
    store = await open()
    await store.reset(contractCollection.name, 'contract')
    await store.reset(contractCompressed.name, 'contract-large')
    await store.reset(contractViewsWhenIdle.name, 'contract-idle')
    await store.reset(contractPending.name, 'contract-pending')
  })
  t.afterEach(async () => store.close())

  t.test('pages in descending id order with has_more, both directions, scoped by account', async (t) => {
    const writes = Array.from({ length: 25 }, (_, i) => write(1, i + 1))
    await store.commit(['contract'], [...writes, write(2, 100), write(2, 5)], 10n)
    const ids = (p: { docs: { id: number }[] }) => p.docs.map((d) => d.id)

    const first = await store.find(contractCollection.name, { accountId: 1, limit: 10 })
    t.same(ids(first), [25, 24, 23, 22, 21, 20, 19, 18, 17, 16])
    t.equal(first.hasMore, true)
    const back = await store.find(contractCollection.name, { accountId: 1, limit: 10, endingBefore: 16 })
    t.same(ids(back), [15, 14, 13, 12, 11, 10, 9, 8, 7, 6])
    const last = await store.find(contractCollection.name, { accountId: 1, limit: 10, endingBefore: 6 })
    t.same(ids(last), [5, 4, 3, 2, 1])
    t.equal(last.hasMore, false)
    const forward = await store.find(contractCollection.name, { accountId: 1, limit: 10, startingAfter: 5 })
    t.same(ids(forward), [15, 14, 13, 12, 11, 10, 9, 8, 7, 6], 'the ids just above the cursor, newest first')
    t.equal(forward.hasMore, true)
    const top = await store.find(contractCollection.name, { accountId: 1, limit: 10, startingAfter: 20 })
    t.same(ids(top), [25, 24, 23, 22, 21])
    t.equal(top.hasMore, false)
    const other = await store.find(contractCollection.name, { accountId: 2, limit: 10 })
    t.same(ids(other), [100, 5], 'another account sees only its own')
    t.equal(await store.get(contractCollection.name, 1, 100), undefined, "another account's id is not found")
  })

  t.test('equality and range filters combine with the id cursor', async (t) => {
    await store.commit(
      ['contract'],
      Array.from({ length: 20 }, (_, i) =>
        write(1, i + 1, { email: i % 2 ? 'odd@x.io' : 'even@x.io', created_at: 1000 + i }),
      ),
      1n,
    )
    const odd = await store.find(contractCollection.name, {
      accountId: 1,
      limit: 100,
      where: [{ field: 'email', op: 'eq', value: 'odd@x.io' }],
    })
    t.same(
      odd.docs.map((d) => d.id),
      [20, 18, 16, 14, 12, 10, 8, 6, 4, 2],
    )
    const range = await store.find(contractCollection.name, {
      accountId: 1,
      limit: 3,
      where: [
        { field: 'created_at', op: 'gte', value: 1005 },
        { field: 'created_at', op: 'lt', value: 1012 },
      ],
      endingBefore: 12,
    })
    t.same(
      range.docs.map((d) => d.id),
      [11, 10, 9],
    )
    t.equal(range.hasMore, true)
    const oneOf = await store.find(contractCollection.name, {
      accountId: 1,
      limit: 100,
      where: [{ field: 'created_at', op: 'in', values: [1003, 1007, 1999] }],
    })
    t.same(
      oneOf.docs.map((d) => d.id),
      [8, 4],
      'a field holding one of several values',
    )
    t.equal(await store.count(contractCollection.name, { accountId: 1 }), 20, 'counted: every document of the account')
    t.equal(
      await store.count(contractCollection.name, {
        accountId: 1,
        where: [{ field: 'email', op: 'eq', value: 'odd@x.io' }],
      }),
      10,
      'counted: those the conditions select',
    )
    t.equal(await store.count(contractCollection.name, { accountId: 2 }), 0, 'counted within the account')
    t.equal(await store.count(contractCollection.name, { accountId: 1 }, 7), 7, 'counted up to a bound')
    t.equal(
      await store.count(
        contractCollection.name,
        { accountId: 1, where: [{ field: 'email', op: 'eq', value: 'odd@x.io' }] },
        50,
      ),
      10,
      'a bound above the count changes nothing',
    )
  })

  t.test('due documents: an integer field at most a bound, every account, lowest first, never null', async (t) => {
    await store.commit(
      ['contract'],
      [write(1, 1, { created_at: 30 }), write(2, 2, { created_at: 10 }), write(1, 3), write(3, 4, { created_at: 99 })],
      10n,
    )
    const due = await store.lookupDue<{ id: number }>(contractCollection.name, 'created_at', 50, 10)
    t.same(
      due.map((d) => [d.accountId, d.id]),
      [
        [2, 2],
        [1, 1],
      ],
    )
    t.equal((await store.lookupDue(contractCollection.name, 'created_at', 50, 1)).length, 1, 'the limit holds')
  })

  t.test('lookups across accounts: a swept value by its own index, any other value bound', async (t) => {
    const moving = write(2, 2, { email: 'waiting' })
    await store.commit(['contract'], [write(1, 1, { email: 'waiting' }), moving, write(1, 3, { email: 'a@x.io' })], 1n)
    const waiting = await store.lookupAll<{ id: number }>(contractCollection.name, 'email', 'waiting', 10)
    t.same(waiting.map((d) => [d.accountId, d.id]).sort(), [
      [1, 1],
      [2, 2],
    ])
    t.same(
      (await store.lookupAll(contractCollection.name, 'email', 'a@x.io', 10)).map((d) => d.id),
      [3],
    )
    const sent = { ...moving, revision: 1, fields: { email: 'sent', created_at: null } }
    await store.commit(['contract'], [sent], 2n)
    const left = await store.lookupAll(contractCollection.name, 'email', 'waiting', 10)
    t.same(
      left.map((d) => d.id),
      [1],
      'a document that leaves the value leaves the sweep',
    )
    t.equal((await store.lookupAll(contractCollection.name, 'email', 'waiting', 0)).length, 0, 'the limit holds')
    t.equal((await store.lookup<{ id: number }>(contractCollection.name, 'email', 'a@x.io'))?.id, 3)
    await t.rejects(
      store.lookupAll(contractCollection.name, 'created_at', '10', 10),
      /no index serves contract_docs.created_at = 10 across accounts/,
      'a value no index across accounts holds is refused, not read from every document',
    )
    await t.rejects(store.lookup(contractCollection.name, 'created_at', '1'), /no index serves/)
  })

  t.test('keys by field: one query for many values, scoped by account', async (t) => {
    const docs = [write(1, 1, { email: 'a@x.io' }), write(1, 2, { email: 'a@x.io' }), write(1, 3, { email: 'b@x.io' })]
    await store.commit(['contract'], [...docs, write(2, 4, { email: 'c@x.io' })], 1n)
    const found = await store.keysByField(contractCollection.name, 1, 'email', ['a@x.io', 'c@x.io', 'none@x.io'])
    t.same([...found.keys()], ['a@x.io'], 'another account’s value and a missing one are absent')
    t.same([...found.get('a@x.io')!].sort(), [docs[0]!.key, docs[1]!.key].sort())
  })

  t.test('views are kept beside documents and paged like them', async (t) => {
    await store.commit(
      ['contract'],
      [1, 2, 3].map((id) => ({ ...write(1, id), views: { card: `{"card":${id}}` } })),
      1n,
    )
    await store.commit(['contract'], [write(1, 4)], 2n)
    const page = await store.findView(contractCollection.name, { accountId: 1, limit: 2 }, 'card')
    t.same(page.views.map(textOfView), [null, '{"card":3}'], 'null where a document has no view yet')
    t.same(page.ids, [4, 3], 'each view with its document id')
    t.equal(page.hasMore, true)
    const rest = await store.findView(contractCollection.name, { accountId: 1, limit: 5, endingBefore: 3 }, 'card')
    t.same(rest.views.map(textOfView), ['{"card":2}', '{"card":1}'])
    t.equal(rest.hasMore, false)
  })

  t.test('a view the collection does not have is refused, in a commit and when filled', async (t) => {
    const before = await store.checkpoint('contract-views')
    await t.rejects(
      store.commit(['contract-views'], [{ ...write(1, 90), views: { card_0: '{}' } }], 90n),
      /card_0 is not a view of contract/,
    )
    t.equal(await store.checkpoint('contract-views'), before, 'nothing committed')
    t.equal(await store.get(contractCollection.name, 1, 90), undefined)
    const C = contractViewsWhenIdle.name
    const idle = { ...write(3, 91), collection: C }
    await store.commit(['contract-idle'], [idle], 91n)
    await t.rejects(store.fillViews(C, [{ key: idle.key, revision: 0, views: { cards: '{}' } }]), /cards is not a view/)
  })

  t.test('views left out of writes are missing, newest first, until filled at their revision', async (t) => {
    const C = contractViewsWhenIdle.name
    const writes = [1, 2, 3].map((id) => ({ ...write(1, id), collection: C }))
    await store.commit(['contract-idle'], [...writes, { ...write(2, 4), collection: C, views: { card: '"4"' } }], 1n)
    const missing = async (limit = 10) => (await store.missingViews<{ id: number }>(C, limit)).map((d) => d.id)
    t.same(await missing(), [3, 2, 1], 'every account, newest id first')
    t.same(await missing(1), [3])
    const [one, two] = writes
    const filled = await store.fillViews(C, [
      { key: one!.key, revision: 0, views: { card: '"1"' } },
      { key: two!.key, revision: 7, views: { card: '"stale"' } },
    ])
    t.equal(filled, 1, 'only a view rendered from the stored revision')
    t.same(await missing(), [3, 2])
    const page = await store.findView(C, { accountId: 1, limit: 5 }, 'card')
    t.same(page.views.map(textOfView), [null, null, '"1"'])
    t.same(textOfView((await store.findView(C, { accountId: 2, limit: 5 }, 'card')).views[0]!), '"4"')

    await store.commit(
      ['contract-idle'],
      [{ ...one!, revision: 1, doc: { id: 1, moved: true }, replaces: { revision: 0, changedFields: [] } }],
      2n,
    )
    t.same(await missing(), [3, 2, 1], "a new revision's write leaves its view missing again")
    t.same((await store.findView(C, { accountId: 1, limit: 5 }, 'card')).views.map(textOfView), [null, null, null])
    t.equal(await store.fillViews(C, [{ key: one!.key, revision: 0, views: { card: '"old"' } }]), 0)
  })

  t.test('a document reads back with its keys in the order written, on every store', async (t) => {
    // An order's fields as the renderer spreads them: not sorted, and keys of every length.
    const doc = {
      object: 'order',
      id: 7,
      uuid: 'u',
      created_at: 1,
      updated_at: 2,
      merchant_id: 'M',
      email: 'e',
      a: { z: 1, b: 2 },
    }
    await store.commit(['contract'], [{ ...write(1, 7), doc }], 1n)
    const read = await store.get(contractCollection.name, 1, 7)
    t.equal(JSON.stringify(read?.doc), JSON.stringify(doc))
    const page = await store.find(contractCollection.name, { accountId: 1, limit: 1 })
    t.equal(JSON.stringify(page.docs[0]?.doc), JSON.stringify(doc))
  })

  t.test('a compressed collection gives back its documents and views as written', async (t) => {
    const events = Array.from({ length: 50 }, (_, i) => ({ message: `Arrivé au centre n°${i}`, at: 1_700_000_000 + i }))
    const writes = [1, 2].map((id) => ({
      ...write(1, id, { email: `${id}@x.io` }),
      collection: contractCompressed.name,
      doc: { id, events },
      views: { card: JSON.stringify({ id, city: 'Zürich', events }) },
    }))
    await store.commit(['contract-large'], writes, 1n)
    t.same((await store.get(contractCompressed.name, 1, 2))?.doc, { id: 2, events })
    t.same((await store.getManyByKey(contractCompressed.name, [writes[0]!.key])).get(writes[0]!.key)?.doc, {
      id: 1,
      events,
    })
    const page = await store.findView(contractCompressed.name, { accountId: 1, limit: 5 }, 'card')
    t.same(
      page.views.map((v) => JSON.parse(textOfView(v)!)),
      [2, 1].map((id) => ({ id, city: 'Zürich', events })),
    )
    const found = await store.find(contractCompressed.name, {
      accountId: 1,
      where: [{ field: 'email', op: 'eq', value: '1@x.io' }],
      limit: 5,
    })
    t.same(
      found.docs.map((d) => d.doc),
      [{ id: 1, events }],
      'filtered on its indexed fields',
    )
  })

  t.test('any text is stored as written: separators, control characters, quotes, empty views', async (t) => {
    const odd = 'a\x1eb\tc\nd\re\\f"g\x1f'
    const C = contractCompressed.name
    const writes = [1, 2].map((id) => ({
      ...write(1, 700 + id, { email: `${odd}${id}` }),
      collection: C,
      doc: { id, odd },
      views: { card: id === 1 ? odd : '' },
    }))
    await store.commit(['contract-odd'], writes, 1n)
    t.same((await store.get(C, 1, 701))?.doc, { id: 1, odd })
    const page = await store.findView(C, { accountId: 1, limit: 2, startingAfter: 700 }, 'card')
    t.same(page.views.map(textOfView), ['', odd], 'an empty view stays empty, not missing')
    const found = await store.find(C, {
      accountId: 1,
      where: [{ field: 'email', op: 'eq', value: `${odd}2` }],
      limit: 5,
    })
    t.same(
      found.docs.map((d) => d.doc),
      [{ id: 2, odd }],
      'found by a field holding them',
    )
  })

  t.test('a document only moves forward in revision; checkpoints are monotonic', async (t) => {
    const w = write(1, 1, { email: 'v1@x.io' }, 3)
    await store.commit(['contract'], [w], 5n)
    await store.commit(
      ['contract'],
      [{ ...w, revision: 2, doc: { stale: true }, fields: { email: 'old@x.io', created_at: null } }],
      4n,
    )
    const found = await store.getByKey(contractCollection.name, w.key)
    t.same(found?.doc, { id: 1, email: 'v1@x.io' }, 'an older revision is ignored')
    t.equal(found?.revision, 3)
    t.equal(await store.checkpoint('contract'), 5n, 'the checkpoint never goes back')
    await store.commit(
      ['contract'],
      [{ ...w, revision: 4, doc: { id: 1, email: 'v2@x.io' }, fields: { email: 'v2@x.io', created_at: null } }],
      7n,
    )
    t.same((await store.get(contractCollection.name, 1, 1))?.doc, { id: 1, email: 'v2@x.io' })
    t.equal(await store.checkpoint('contract'), 7n)
    // A commit names several projections; each moves only forward, a longer position being the greater.
    await store.commit(['contract', 'contract-other'], [], 10n)
    await store.commit(['contract', 'contract-other', 'contract-new'], [], 9n)
    t.same(
      await Promise.all(['contract', 'contract-other', 'contract-new'].map((p) => store.checkpoint(p))),
      [10n, 10n, 9n],
      'each named checkpoint moved up, none back',
    )
    const many = await store.getManyByKey(contractCollection.name, [w.key, 'missing'])
    t.same([...many.keys()], [w.key])
    t.same([...(await store.getManyByKey(contractCollection.name, [])).keys()], [], 'no keys, no documents')
    t.equal(
      (await store.lookup(contractCollection.name, 'email', 'v2@x.io'))?.id,
      1,
      'unscoped lookup by a unique field',
    )
  })

  t.test('a write believed new that meets a stored document (a replay) is applied as any other', async (t) => {
    const C = contractCollection.name
    const [kept, moved] = [write(1, 1, { email: 'kept@x.io' }, 3), write(1, 2, { email: 'moved@x.io' }, 0)]
    // Given two stored documents
    await store.commit(['contract'], [kept, moved], 1n)
    // When a commit believes both new (one at an older revision, one at a newer) beside a new one
    const fresh = write(1, 3, { email: 'fresh@x.io' })
    await store.commit(
      ['contract'],
      [
        { ...kept, revision: 2, doc: { stale: true }, absent: true },
        {
          ...moved,
          revision: 1,
          doc: { id: 2, email: 'now@x.io' },
          fields: { email: 'now@x.io', created_at: null },
          absent: true,
        },
        { ...fresh, absent: true },
      ],
      2n,
    )
    // Then the older is ignored, the newer replaces, the new one is written, and the checkpoint moves
    t.match(await store.getByKey(C, kept.key), { revision: 3, doc: { id: 1, email: 'kept@x.io' } })
    t.match(await store.getByKey(C, moved.key), { revision: 1, doc: { id: 2, email: 'now@x.io' } })
    t.equal((await store.lookup(C, 'email', 'now@x.io'))?.id, 2, 'found by its new field')
    t.match(await store.getByKey(C, fresh.key), { revision: 0, doc: { id: 3, email: 'fresh@x.io' } })
    t.equal(await store.checkpoint('contract'), 2n)
    // And documents new indeed are written by the commits after it
    const later = write(1, 4, { email: 'later@x.io' })
    await store.commit(['contract'], [{ ...later, absent: true }], 3n)
    t.match(await store.getByKey(C, later.key), { revision: 0, doc: { id: 4 } })
    t.equal(await store.checkpoint('contract'), 3n)
  })

  t.test('a replacing write moves its changed fields, and writes it all where the row moved on', async (t) => {
    const w = write(1, 1, { email: 'a@x.io', created_at: 100 }, 3)
    await store.commit(['contract'], [w], 1n)
    const replacing = (revision: number, base: number, email: string, changedFields: string[]): DocumentWrite => ({
      ...w,
      revision,
      doc: { id: 1, email, revision },
      fields: { email, created_at: 100 },
      views: { card: `{"email":"${email}"}` },
      replaces: { revision: base, changedFields },
    })
    await store.commit(['contract'], [replacing(4, 3, 'a@x.io', [])], 2n)
    await store.commit(['contract'], [replacing(5, 4, 'b@x.io', ['email'])], 3n)
    const found = async (field: string, value: string | number) =>
      (
        await store.find(contractCollection.name, {
          accountId: 1,
          where: [{ field, op: 'eq', value }],
          limit: 10,
        })
      ).docs.map((d) => d.doc)
    const byEmail = (email: string) => found('email', email)
    t.same(await byEmail('b@x.io'), [{ id: 1, email: 'b@x.io', revision: 5 }], 'found by its new value')
    t.same(await byEmail('a@x.io'), [], 'not by its old one')
    t.same((await found('created_at', 100)).length, 1, 'an unchanged field keeps its index entry')
    const view = await store.findView(contractCollection.name, { accountId: 1, limit: 10 }, 'card')
    t.same(view.views.map(textOfView), ['{"email":"b@x.io"}'], 'the views are replaced')

    // Built from revision 3, but the stored row is at 5: a newer revision is written whole, an older one not at all.
    await store.commit(['contract'], [replacing(4, 3, 'stale@x.io', [])], 4n)
    t.same(await byEmail('b@x.io'), [{ id: 1, email: 'b@x.io', revision: 5 }], 'an older revision changes nothing')
    await store.commit(['contract'], [replacing(6, 3, 'c@x.io', [])], 5n)
    t.same(
      await byEmail('c@x.io'),
      [{ id: 1, email: 'c@x.io', revision: 6 }],
      'a newer one is written with all its fields',
    )
    t.same(await byEmail('b@x.io'), [])
    await store.commit(['contract'], [replacing(6, 6, 'd@x.io', ['email'])], 6n)
    t.same(
      await byEmail('c@x.io'),
      [{ id: 1, email: 'c@x.io', revision: 6 }],
      'the same revision again changes nothing',
    )
  })

  t.test('one commit moves several projections’ checkpoints, each only forward', async (t) => {
    await store.commit(['contract-a'], [], 9n)
    await store.commit(['contract-a', 'contract-b'], [write(1, 50)], 8n)
    t.equal(await store.checkpoint('contract-a'), 9n, 'a checkpoint ahead of the commit stays')
    t.equal(await store.checkpoint('contract-b'), 8n, 'a new checkpoint is set')
    t.equal((await store.get(contractCollection.name, 1, 50))?.id, 50, 'with the documents')
    await store.commit(['contract-a', 'contract-b'], [], 12n)
    t.same([await store.checkpoint('contract-a'), await store.checkpoint('contract-b')], [12n, 12n])
  })

  t.test(
    'a rebuild prepared on one connection and joined by another takes what both write, then swaps in',
    async (t) => {
      await store.commit(['contract'], [write(1, 1)], 3n)
      const shadow = await store.prepareRebuild(contractCollection.name, 'contract-shadow')
      const other = await open()
      t.teardown(() => other.close())
      t.equal(other.joinRebuild(contractCollection.name), shadow, 'the same shadow')
      await store.commit([], [{ ...write(1, 10), collection: shadow }], 5n)
      await other.commit([], [{ ...write(1, 11), collection: shadow }], 5n)
      t.equal(await store.checkpoint('contract-shadow'), undefined, 'a commit naming no projection moves no checkpoint')
      t.notOk(
        await store.completeRebuild(contractCollection.name, 'contract', 'contract-shadow'),
        'not swapped in before it has a checkpoint',
      )
      await store.commit(['contract-shadow'], [], 5n)
      await store.indexRebuild(contractCollection.name)
      t.ok(await store.completeRebuild(contractCollection.name, 'contract', 'contract-shadow'), 'swapped in')
      const page = await store.find(contractCollection.name, { accountId: 1, limit: 10 })
      t.same(
        page.docs.map((d) => d.id),
        [11, 10],
        "both connections' documents, the live ones gone",
      )
      t.equal(await store.checkpoint('contract'), 5n)
    },
  )

  /** A store without `pendingOf` keeps no pending events: an append given to it is refused, and nothing written. */
  const refusesAppends = async (t: Test) => {
    const C = contractPending.name
    const append: DocumentAppend = { collection: C, key: 'pending-1', after: 0, revision: 1, events: [] }
    await t.rejects(store.commit(['contract-pending'], [append], 1n), /keeps no pending events/)
    t.equal(await store.checkpoint('contract-pending'), undefined)
  }

  t.test('events appended to a document are folded into it by every read, until it is written whole', async (t) => {
    const C = contractPending.name
    const doc = (id: number, revision: number, sum: number): DocumentWrite => ({
      ...write(1, id, { email: `${id}@example.com` }, revision),
      collection: C,
      key: `pending-${id}`,
      doc: { id, sum },
      views: { card: `{"sum":${sum}}` },
    })
    const append = (id: number, after: number, ...ns: number[]): DocumentAppend => ({
      collection: C,
      key: `pending-${id}`,
      after,
      revision: after + ns.length,
      events: ns.map((n, i) => ({ type: 'Added', revision: after + 1 + i, data: { n } })),
    })
    if (!store.pendingOf) return refusesAppends(t)
    // Given two documents, one with events appended in two commits
    await store.commit(['contract-pending'], [doc(1, 0, 10), doc(2, 0, 100)], 1n)
    await store.commit(['contract-pending'], [append(1, 0, 1, 2)], 2n)
    await store.commit(['contract-pending'], [append(1, 2, 3)], 3n)

    // Then each read folds them in, and says how many it folded
    const folded = { key: 'pending-1', revision: 3, doc: { id: 1, sum: 16 }, pending: 3 }
    t.match(await store.getByKey(C, 'pending-1'), folded)
    t.match(await store.get(C, 1, 1), folded)
    t.match((await store.getManyByKey(C, ['pending-1', 'pending-2'])).get('pending-1'), folded)
    t.same((await store.getManyByKey(C, ['pending-2'])).get('pending-2')?.pending, undefined)
    t.same(
      (await store.find(C, { accountId: 1, limit: 5 })).docs.map((d) => d.doc),
      [
        { id: 2, sum: 100 },
        { id: 1, sum: 16 },
      ],
    )
    t.match(await store.lookup(C, 'email', '1@example.com'), folded)
    t.same(Object.fromEntries(await store.pendingOf(C, ['pending-1', 'pending-2', 'pending-3'])), {
      'pending-1': { revision: 3, pending: 3 },
      'pending-2': { revision: 0, pending: 0 },
    })
    // And an appended document's views are dropped until filled again
    t.same((await store.findView(C, { accountId: 1, limit: 5 }, 'card')).views.map(textOfView), ['{"sum":100}', null])
    t.match(await store.missingViews(C, 5), [folded])

    // When its views are filled with the document as folded
    t.equal(
      await store.fillViews(C, [
        { key: 'pending-1', revision: 3, views: { card: '{"sum":16}' }, folded: { id: 1, sum: 16 } },
      ]),
      1,
    )
    // Then it is stored folded: nothing is pending, and reads give the same document
    t.same(Object.fromEntries(await store.pendingOf(C, ['pending-1'])), { 'pending-1': { revision: 3, pending: 0 } })
    t.same((await store.getByKey(C, 'pending-1'))?.doc, { id: 1, sum: 16 })
    t.same((await store.getByKey(C, 'pending-1'))?.pending, undefined)

    // When events are appended again, then the document is written whole
    await store.commit(['contract-pending'], [append(1, 3, 4)], 4n)
    await store.commit(['contract-pending'], [doc(1, 5, 50)], 5n)
    // Then the whole write replaced the events that were pending
    t.same(Object.fromEntries(await store.pendingOf(C, ['pending-1'])), { 'pending-1': { revision: 5, pending: 0 } })
    t.same((await store.getByKey(C, 'pending-1'))?.doc, { id: 1, sum: 50 })
  })

  t.test('a document made of its events alone is folded from nothing, replaced only at a newer revision', async (t) => {
    const C = contractPending.name
    const created = (revision: number, ...ns: number[]): DocumentAppend => ({
      collection: C,
      key: 'pending-5',
      revision,
      events: [
        { type: 'Started', revision: 0, data: { n: 0 } },
        ...ns.map((n, i) => ({ type: 'Added', revision: i + 1, data: { n } })),
      ],
      creates: { accountId: 1, id: 5, fields: { email: '5@example.com', created_at: 50 } },
    })
    if (!store.pendingOf) return refusesAppends(t)
    const fold = contractPending.pending.fold
    // Given a document created from its events
    await store.commit(['contract-pending'], [created(2, 1, 2)], 1n)
    // Then reads fold them from nothing, and it is found by its indexed fields
    const folded = fold(null, created(2, 1, 2).events as PendingEvent[])
    t.match(await store.getByKey(C, 'pending-5'), { id: 5, accountId: 1, revision: 2, doc: folded, pending: 3 })
    t.match(await store.lookup(C, 'email', '5@example.com'), { doc: folded })
    t.same(
      (await store.find(C, { accountId: 1, where: [{ field: 'created_at', op: 'eq', value: 50 }], limit: 5 })).docs
        .length,
      1,
    )
    // When the same creation comes again at an older revision (a replay), then it changes nothing
    await store.commit(['contract-pending'], [created(1, 7)], 2n)
    t.match(await store.getByKey(C, 'pending-5'), { revision: 2, doc: folded })
    // When an event is appended to it as the event store keeps its data, JSON text, then it is folded after the others
    const appended: DocumentAppend = {
      collection: C,
      key: 'pending-5',
      after: 2,
      revision: 3,
      events: [{ type: 'Added', revision: 3, dataJson: '{"n":4}' }],
    }
    await store.commit(['contract-pending'], [appended], 3n)
    t.match(await store.getByKey(C, 'pending-5'), { revision: 3, pending: 4, doc: { sum: 7 } })
  })

  t.test('one commit writing a document whole and appending to it applies them in the order given', async (t) => {
    if (!store.pendingOf) return refusesAppends(t)
    const C = contractPending.name
    const whole = (id: number, revision: number, sum: number): DocumentWrite => ({
      ...write(1, id, {}, revision),
      collection: C,
      key: `pending-${id}`,
      doc: { id, sum },
    })
    const added = (id: number, after: number, n: number): DocumentAppend => ({
      collection: C,
      key: `pending-${id}`,
      after,
      revision: after + 1,
      events: [{ type: 'Added', revision: after + 1, data: { n } }],
    })
    // Given a commit writing one document whole then appending to it, and another appended to then written whole
    await store.commit(['contract-pending'], [whole(21, 0, 1), whole(22, 0, 1)], 1n)
    await store.commit(['contract-pending'], [whole(21, 1, 10), added(21, 1, 5), added(22, 0, 5), whole(22, 2, 20)], 2n)
    // Then the first holds its whole write and the event after it, the second its whole write alone
    t.match(await store.getByKey(C, 'pending-21'), { revision: 2, doc: { sum: 15 }, pending: 1 })
    t.match(await store.getByKey(C, 'pending-22'), { revision: 2, doc: { sum: 20 } })
    t.same((await store.getByKey(C, 'pending-22'))?.pending, undefined)
  })

  t.test('an append to a document that moved from the revision it names fails the whole commit', async (t) => {
    if (!store.pendingOf) return refusesAppends(t)
    const C = contractPending.name
    const stale: DocumentAppend = {
      collection: C,
      key: 'pending-9',
      after: 0,
      revision: 1,
      events: [{ type: 'Added', revision: 1, data: { n: 1 } }],
    }
    await store.commit(
      ['contract-pending'],
      [{ ...write(1, 9, {}, 2), collection: C, key: 'pending-9', doc: { id: 9, sum: 0 } }],
      1n,
    )
    await t.rejects(
      store.commit(
        ['contract-pending'],
        [{ ...write(1, 10), collection: C, key: 'pending-10', doc: { id: 10, sum: 0 } }, stale],
        2n,
      ),
      /no longer at revision 0/,
    )
    t.equal(await store.getByKey(C, 'pending-10'), undefined, 'nothing of the commit is written')
    t.equal(await store.checkpoint('contract-pending'), 1n)
    t.same((await store.getByKey(C, 'pending-9'))?.doc, { id: 9, sum: 0 })
  })
}
