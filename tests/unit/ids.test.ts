import t from 'tap'
import { createIdGenerator, eventId, firstIdAt, idTime, randomUuid } from '../../shared/infra/id-generator.ts'

t.test('a burst of 100,000 ids is unique, increasing and below 2^53', async (t) => {
  const ids = createIdGenerator(3, () => Date.UTC(2026, 10, 22))
  let previous = 0
  const seen = new Set<number>()
  for (let i = 0; i < 100_000; i++) {
    const id = ids.next()
    if (id <= previous || seen.has(id)) t.fail(`id ${id} after ${previous}`)
    seen.add(id)
    previous = id
  }
  t.equal(seen.size, 100_000)
  t.ok(previous < 2 ** 53 && Number.isSafeInteger(previous))
})

t.test('a clock that steps backwards never repeats or reorders ids', async (t) => {
  let now = Date.UTC(2026, 10, 22, 12)
  const ids = createIdGenerator(0, () => now)
  const before = [ids.next(), ids.next()]
  now -= 60_000
  const after = [ids.next(), ids.next()]
  t.ok(after[0]! > before[1]! && after[1]! > after[0]!)
  now += 120_000
  t.ok(ids.next() > after[1]!)
})

t.test('two node numbers never collide, even on the same millisecond', async (t) => {
  const at = () => Date.UTC(2026, 0, 1)
  const a = createIdGenerator(1, at)
  const b = createIdGenerator(2, at)
  const all = new Set<number>()
  for (let i = 0; i < 10_000; i++) {
    all.add(a.next())
    all.add(b.next())
  }
  t.equal(all.size, 20_000)
})

t.test('ids are ordered by time and carry it', async (t) => {
  const at = Date.UTC(2030, 5, 1, 8, 30)
  const id = createIdGenerator(0, () => at).next()
  t.equal(idTime(id).getTime(), at)
  t.ok(createIdGenerator(31, () => at).next() < createIdGenerator(0, () => at + 1).next())
  t.throws(() => createIdGenerator(32), RangeError)
})

t.test('the first id of a time bounds every id made from then on, and none made before', async (t) => {
  const at = Date.UTC(2030, 5, 1, 8, 30)
  t.ok(createIdGenerator(0, () => at).next() >= firstIdAt(at), 'node 0, the time itself')
  t.ok(createIdGenerator(31, () => at - 1).next() < firstIdAt(at), 'the millisecond before, any node')
  t.equal(firstIdAt(0), 0, 'before the epoch: every id')
})

t.test('event ids are RFC 9562 UUIDv7, ordered by time', async (t) => {
  const a = eventId(Date.UTC(2026, 0, 1))
  const b = eventId(Date.UTC(2026, 0, 1, 0, 0, 1))
  t.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.ok(a < b)
  t.equal(parseInt(a.replaceAll('-', '').slice(0, 12), 16), Date.UTC(2026, 0, 1))
  t.not(eventId(1), eventId(1), 'random below the millisecond')
})

t.test('resource UUIDs are random RFC 9562 version 4 UUIDs, each new', async (t) => {
  const ids = createIdGenerator(0)
  const uuids = Array.from({ length: 600 }, () => ids.uuid())
  for (const uuid of uuids) t.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.equal(new Set(uuids).size, uuids.length, 'no repeats across refills of the random pool')
  t.not(randomUuid(), randomUuid())
})
