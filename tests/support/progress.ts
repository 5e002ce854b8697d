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

/** Waits until no job of a queue (named after its suffix: `webhooks`, `emails`, `poll-dhl`) waits, runs or is delayed. */
export const queueDrained = (server: Pick<RunningServer, 'url'>, queueSuffix: string) =>
  until(
    async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text()
      const pending = new RegExp(
        `^shiplog_jobs\\{queue="[^"]*-${queueSuffix}",state="(waiting|active|delayed)"\\} (\\d+)$`,
        'gm',
      )
      return [...text.matchAll(pending)].reduce((n, m) => n + Number(m[2]), 0)
    },
    (n) => n === 0,
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
