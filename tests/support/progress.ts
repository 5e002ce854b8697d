import type { RunningServer } from '../../server/start.ts'

/** Reads until `done` holds, every 100 ms, for at most `timeoutMs`; then fails with the last value. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting; last value: ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** One sample of /metrics: the value of a metric with the given labels (0 when absent). */
export async function metric(server: Pick<RunningServer, 'url'>, name: string, labels: Record<string, string> = {}) {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  let total = 0
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const have = (m[2] ?? '').split(',')
    if (wanted.every((w) => have.includes(w))) total += Number(m[3])
  }
  return total
}

/**
 * Waits until a reaction (`webhooks`, `emails`) has handled the log up to a
 * position the service answered (X-Shiplog-Position): whatever it was to do
 * for the events up to there, it has done, so the absence of an effect can be
 * asserted without waiting a fixed time.
 */
export const reactionPassed = (server: Pick<RunningServer, 'url'>, reaction: string, position: string | bigint) =>
  until(
    () => metric(server, 'shiplog_reaction_position', { reaction }),
    (at) => BigInt(at) >= BigInt(position),
  )

/** The jobs of a queue (named after its suffix: `webhooks`, `emails`, `sms`, `poll-dhl`) in the states given. */
async function jobsIn(server: Pick<RunningServer, 'url'>, queueSuffix: string, states: string) {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const pattern = new RegExp(`^shiplog_jobs\\{queue="[^"]*-${queueSuffix}",state="(${states})"\\} (\\d+)$`, 'gm')
  return [...text.matchAll(pattern)].reduce((n, m) => n + Number(m[2]), 0)
}

/** Waits until no job of a queue waits, runs or is delayed. */
export const queueDrained = (server: Pick<RunningServer, 'url'>, queueSuffix: string) =>
  until(
    () => jobsIn(server, queueSuffix, 'waiting|active|delayed'),
    (n) => n === 0,
  )

/** Waits until a queue holds this many jobs delayed and none waiting or running: what it was to do now, it did. */
export const queueHolds = (server: Pick<RunningServer, 'url'>, queueSuffix: string, delayed: number) =>
  until(
    async () => [await jobsIn(server, queueSuffix, 'delayed'), await jobsIn(server, queueSuffix, 'waiting|active')],
    ([held, pending]) => held === delayed && pending === 0,
  )

/**
 * Waits until carrier polling has looked for due trackers twice more: every
 * tracker due after now has been queued at least once since, and once its
 * queue drains, polled.
 */
export async function pollTicksPassed(server: Pick<RunningServer, 'url'>, queueSuffix: string) {
  const from = await metric(server, 'shiplog_carrier_poll_ticks_total')
  await until(
    () => metric(server, 'shiplog_carrier_poll_ticks_total'),
    (n) => n >= from + 2,
  )
  await queueDrained(server, queueSuffix)
}

/**
 * Waits until the delay sweep has looked for due trackers twice more, and
 * the checks it queued for now have run (its next sweep always waits, delayed).
 */
export async function delaySweepsPassed(server: Pick<RunningServer, 'url'>) {
  const from = await metric(server, 'shiplog_delay_sweeps_total')
  await until(
    () => metric(server, 'shiplog_delay_sweeps_total'),
    (n) => n >= from + 2,
  )
  await until(
    () => jobsIn(server, 'delays', 'waiting|active'),
    (n) => n === 0,
  )
}
