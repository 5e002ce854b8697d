import { join } from 'node:path'
import t from 'tap'
import { decideOnStream, toNewEvents } from '../../commands/execute.ts'
import type { DomainEvent } from '../../shared/domain/events/index.ts'
import type { EventMetadata } from '../../shared/infra/event-store/port.ts'
import { createSqliteEventStore } from '../../shared/infra/event-store/sqlite.ts'
import { tempDir } from '../support/temp.ts'

const metadata = (): EventMetadata => ({ accountId: 1, correlationId: 'test', source: 'reaction', recordedAt: 0 })
const completed = (n: number): DomainEvent =>
  ({ type: 'JobCompleted', data: { results_count: n, at: n } }) as DomainEvent
const STREAM = 'job-1_1'

t.test('a reaction decides on its stream as read and appends at that revision', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-decide-'), 'events.db'))
  t.teardown(() => store.close())
  await store.append([{ stream: STREAM, expected: 'no_stream', events: toNewEvents([completed(1)], metadata()) }])
  const seen: number[] = []
  const position = await decideOnStream(
    { eventStore: store },
    STREAM,
    (history) => {
      seen.push(history.length)
      return [completed(history.length + 1)]
    },
    metadata,
  )
  t.ok(position, 'appended')
  t.same(seen, [1])
  t.equal((await store.readStream(STREAM)).length, 2)
  t.equal(
    await decideOnStream({ eventStore: store }, STREAM, () => [], metadata),
    undefined,
    'nothing decided, nothing appended',
  )
})

t.test('given a concurrent change, the reaction decides again on the longer history', async (t) => {
  const store = createSqliteEventStore(join(tempDir(t, 'shiplog-decide-'), 'events.db'))
  t.teardown(() => store.close())
  await store.append([{ stream: STREAM, expected: 'no_stream', events: toNewEvents([completed(1)], metadata()) }])
  const seen: number[] = []
  await decideOnStream(
    { eventStore: store },
    STREAM,
    (history) => {
      seen.push(history.length)
      // Another writer appends between this read and its append, once.
      if (seen.length === 1)
        void store.append([{ stream: STREAM, expected: 'any', events: toNewEvents([completed(9)], metadata()) }])
      return [completed(history.length + 1)]
    },
    metadata,
  )
  t.same(seen, [1, 2], 'the second decision saw the other writer’s event')
  t.equal((await store.readStream(STREAM)).length, 3, 'and appended after it, nothing lost')
})
