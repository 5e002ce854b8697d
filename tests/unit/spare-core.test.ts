import t, { type Test } from 'tap'
import { PROBE_MS, RUN_MS, spareCoreGate } from '../../shared/infra/spare-core.ts'

/* When work that can wait (the projector's idle views) may run: only on a core nobody else wants. */

/** A step: `ms` pass with `busy` cores at work, then the gate is asked; `open` is what it must answer. */
type Step = [ms: number, busy: number, open: boolean, why?: string]

/** Given a machine of `cores` cores and the gate watching it, when time passes step by step, then the gate answers each. */
function machine(t: Test, cores: number, steps: Step[]) {
  let clock = 0
  let idleMs = 0
  const gate = spareCoreGate(
    () => clock,
    () => idleMs,
  )
  for (const [ms, busy, open, why] of steps) {
    clock += ms
    idleMs += ms * Math.max(0, cores - busy)
    t.equal(gate.open(), open, why ?? `at ${clock} ms, ${busy} of ${cores} cores busy`)
  }
}

t.test('closed until a probe has watched the machine', async (t) => {
  machine(t, 2, [
    [PROBE_MS - 1, 0, false, 'a probe lasts a tenth of a second'],
    [1, 0, true, 'an idle machine opens it'],
  ])
})

t.test('a machine busy on all but half a core keeps it closed, probe after probe', async (t) => {
  machine(t, 2, [
    ...Array.from({ length: 10 }, (): Step => [PROBE_MS, 1.5, false]),
    [PROBE_MS, 1, true, 'a whole core left idle opens it'],
  ])
})

t.test('open for a second, then closed while the next probe watches', async (t) => {
  machine(t, 2, [
    [PROBE_MS, 0, true],
    [RUN_MS - 1, 1, true, 'the work runs on its spare core'],
    [1, 1, false, 'its second is over: a probe begins, the work held back'],
    [PROBE_MS, 2, false, 'a load came meanwhile: it stays closed'],
    [PROBE_MS, 0.5, true, 'the load gone, it opens again'],
  ])
})

t.test('on one core the work’s own time does not close it', async (t) => {
  machine(t, 1, [
    [PROBE_MS, 0, true],
    [RUN_MS, 1, false, 'a probe, with the work held back'],
    [PROBE_MS, 0, true, 'nothing else wanted the core'],
  ])
})
