import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createStateCache } from '../../command-api/state-cache.ts'
import type { NewEvent } from '../../shared/event-store/port.ts'
import { createSqliteEventStore } from '../../shared/event-store/sqlite.ts'

const event = (n: number): NewEvent => ({ id: randomUUID(), type: 'Added', data: { n }, metadata: { accountId: 1, correlationId: 't', recordedAt: 0 } })

t.test('the state cache reads only what it has not folded, including other writers’ events', async (t) => {
  const store = createSqliteEventStore(join(mkdtempSync(join(tmpdir(), 'shiplog-cache-')), 'events.db'))
  t.teardown(() => store.close())
  let folded = 0
  const sums = createStateCache<number>((sum, e) => (folded++, (sum ?? 0) + (e.data as { n: number }).n))
  t.same(await sums.loadMany(store, ['sum-1']), [{ state: undefined, revision: -1, position: 0n }])

  const first = await store.append([{ stream: 'sum-1', expected: 'no_stream', events: [event(1), event(2)] }])
  t.match(await sums.loadMany(store, ['sum-1']), [{ state: 3, revision: 1 }])
  t.equal(folded, 2)

  // What this process appends it remembers without reading back.
  const ours = await store.append([{ stream: 'sum-1', expected: 1, events: [event(10)] }])
  sums.appended({ stream: 'sum-1', expected: 1, events: [] }, 13, ours.revisions[0]!, ours.position)
  // Another writer appends: only its event is read and folded on top.
  await store.append([{ stream: 'sum-1', expected: 2, events: [event(100)] }])
  await store.append([{ stream: 'sum-2', expected: 'no_stream', events: [event(5)] }])
  t.match(await sums.loadMany(store, ['sum-2', 'sum-1', 'sum-3']), [{ state: 5, revision: 0 }, { state: 113, revision: 3 }, { state: undefined, revision: -1 }])
  t.equal(folded, 4, 'one more event folded on sum-1, not four, and the one of sum-2')
  t.ok(first.position > 0n)
})
