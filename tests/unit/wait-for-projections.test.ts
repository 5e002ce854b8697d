import t from 'tap'
import { ProjectionProgress } from '../../shared/infra/read-store/projection-progress.ts'
import { waitForProjections } from '../../shared/infra/read-store/wait-for-projections.ts'

/** A store whose projections' checkpoints the test moves, counting each read of one. */
function store(names: readonly string[]) {
  const checkpoints = new Map(names.map((n) => [n, 0n]))
  const reads: string[] = []
  return {
    checkpoints,
    reads,
    checkpoint: async (name: string) => {
      reads.push(name)
      return checkpoints.get(name)
    },
  }
}
const names = Array.from({ length: 17 }, (_, i) => `projection_${i}`)

t.test('given projections in another process, a wait asks only the one behind while it is behind', async (t) => {
  const s = store(names)
  for (const n of names) s.checkpoints.set(n, 10n)
  s.checkpoints.set('projection_5', 3n)
  const waiting = waitForProjections(s, names, 10n, 5000)
  await new Promise((r) => setTimeout(r, 40))
  const whileBehind = s.reads.length
  t.ok(whileBehind >= 3, 'polled several times')
  t.same(s.reads.slice(6), Array(whileBehind - 6).fill('projection_5'), 'after the first ask, only the one behind')
  s.checkpoints.set('projection_5', 12n)
  t.equal(await waiting, true, 'done once every projection has passed the position')
  t.same(s.reads.slice(-names.length).toSorted(), names.toSorted(), 'the last ask read each projection once')
})

t.test('given the projector in this process, its word ends the wait without asking the store', async (t) => {
  const s = store(names)
  const progress = new ProjectionProgress()
  progress.advance(1n)
  const waiting = waitForProjections(s, names, 10n, 5000, progress)
  setTimeout(() => progress.advance(10n), 20)
  t.equal(await waiting, true)
  t.same(s.reads, [], 'no checkpoint read')
})

t.test('given a projection that never catches up, the wait gives up at its timeout', async (t) => {
  const s = store(['a', 'b'])
  s.checkpoints.set('a', 10n)
  const started = Date.now()
  t.equal(await waitForProjections(s, ['a', 'b'], 10n, 60), false)
  t.ok(Date.now() - started >= 60, 'waited its time out')
})
