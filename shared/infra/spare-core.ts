import { cpus } from 'node:os'

/** The machine's idle time since it started, summed over its cores (ms), as the system counts it, on every platform Node runs on. */
export const machineIdleMs = () => cpus().reduce((sum, core) => sum + core.times.idle, 0)

/**
 * The span the machine is watched over with the work held back: ten of the
 * system's 10 ms ticks a core, and a tenth of the work's time.
 */
export const PROBE_MS = 100
/** How long the work runs after a probe found a core to spare, before the next probe. */
export const RUN_MS = 1000
/**
 * Idle cores a probe must find: a whole core, less the ticks' coarseness.
 * Whatever else runs (a request thread, a webhook receiver, the database)
 * keeps its core; what waits takes only what nobody else wanted.
 */
export const SPARE_CORES = 0.9

/**
 * A gate for work that can wait (the projector's idle views): open for a
 * second after a tenth of a second in which the machine, with that work held
 * back, left a core idle. Measured with the work held back because its own
 * time would otherwise count as busy: on one core it would close itself.
 * `open()` is asked each time the work could run; it reads the machine's
 * counters only at the ends of probes.
 */
export function spareCoreGate(now: () => number = () => performance.now(), idleMs = machineIdleMs) {
  const probeFrom = (at: number) => ({ from: at, idleMs: idleMs() })
  let probe = probeFrom(now())
  let runUntil = Number.NEGATIVE_INFINITY
  return {
    open(): boolean {
      const at = now()
      if (at < runUntil) return true
      if (runUntil !== Number.NEGATIVE_INFINITY) {
        runUntil = Number.NEGATIVE_INFINITY
        probe = probeFrom(at)
        return false
      }
      if (at - probe.from < PROBE_MS) return false
      const idleCores = (idleMs() - probe.idleMs) / (at - probe.from)
      if (idleCores >= SPARE_CORES) {
        runUntil = at + RUN_MS
        return true
      }
      probe = probeFrom(at)
      return false
    },
  }
}
