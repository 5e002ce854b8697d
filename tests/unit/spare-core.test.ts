import t from 'tap'
import { PROBE_MS, RUN_MS, spareCoreGate } from '../../shared/infra/spare-core.ts'

/* When work that can wait (the projector's idle views) may run: only on a core nobody else wants. */

/** Given a machine of `cores` cores, a clock, and the gate watching it. */
function machine(cores: number) {
  let clock = 0
  let idleMs = 0
  const gate = spareCoreGate(
    () => clock,
    () => idleMs,
  )
  return {
    gate,
    /** `ms` pass with `busy` cores at work. */
    pass(ms: number, busy: number) {
      clock += ms
      idleMs += ms * Math.max(0, cores - busy)
    },
  }
}

t.test('closed until a probe has watched the machine', async (t) => {
  const m = machine(2)
  m.pass(PROBE_MS - 1, 0)
  t.equal(m.gate.open(), false, 'a probe lasts a tenth of a second')
  m.pass(1, 0)
  t.equal(m.gate.open(), true, 'an idle machine opens it')
})

t.test('a machine busy on all but half a core keeps it closed, probe after probe', async (t) => {
  const m = machine(2)
  for (let i = 0; i < 10; i++) {
    m.pass(PROBE_MS, 1.5)
    t.equal(m.gate.open(), false)
  }
  m.pass(PROBE_MS, 1)
  t.equal(m.gate.open(), true, 'a whole core left idle opens it')
})

t.test('open for a second, then closed while the next probe watches', async (t) => {
  const m = machine(2)
  m.pass(PROBE_MS, 0)
  t.equal(m.gate.open(), true)
  m.pass(RUN_MS - 1, 1)
  t.equal(m.gate.open(), true, 'the work runs on its spare core')
  m.pass(1, 1)
  t.equal(m.gate.open(), false, 'its second is over: a probe begins, the work held back')
  m.pass(PROBE_MS, 2)
  t.equal(m.gate.open(), false, 'a load came meanwhile: it stays closed')
  m.pass(PROBE_MS, 0.5)
  t.equal(m.gate.open(), true, 'the load gone, it opens again')
})

t.test('on one core the work’s own time does not close it', async (t) => {
  const m = machine(1)
  m.pass(PROBE_MS, 0)
  t.equal(m.gate.open(), true)
  m.pass(RUN_MS, 1)
  t.equal(m.gate.open(), false, 'a probe, with the work held back')
  m.pass(PROBE_MS, 0)
  t.equal(m.gate.open(), true, 'nothing else wanted the core')
})
