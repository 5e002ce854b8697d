import cliProgress from 'cli-progress'
import { InvalidArgumentError } from 'commander'
import { projections } from '../projectors/all-projections.ts'
import { rebuildProjection } from '../projectors/runner.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

const byName = (name: string) => {
  const found = projections.find((p) => p.name === name)
  if (!found)
    throw new InvalidArgumentError(
      `unknown projection ${name}; projections are ${projections.map((p) => p.name).join(', ')}`,
    )
  return found
}

/** Each projection's checkpoint and how far it is behind the head of the log. */
export async function projectionStatus(rt: Runtime) {
  const head = await rt.eventStore.head()
  return Promise.all(
    projections.map(async (p) => {
      const checkpoint = (await rt.readStore.checkpoint(p.name)) ?? 0n
      return {
        projection: p.name,
        checkpoint: Number(checkpoint),
        head: Number(head),
        lag: Number(head - checkpoint),
      }
    }),
  )
}

/**
 * Rebuilds the named projections, one after the other. On a terminal a
 * progress bar shows events per second and the ETA; otherwise a plain line
 * every two seconds.
 */
export async function rebuildProjections(rt: Runtime, names: string[], out: NodeJS.WriteStream = process.stderr) {
  for (const projection of names.map(byName)) {
    const head = Number(await rt.eventStore.head())
    const started = performance.now()
    let events = 0
    const rate = () => Math.round(events / Math.max((performance.now() - started) / 1000, 0.001))
    let report: (position: bigint) => void
    let finish: () => void
    if (out.isTTY) {
      const bar = new cliProgress.SingleBar(
        {
          format: `${projection.name.padEnd(16)} [{bar}] {percentage}% | {value}/{total} | {rate} events/s | ETA {eta_formatted}`,
          stream: out,
        },
        cliProgress.Presets.shades_classic,
      )
      bar.start(Math.max(head, 1), 0, { rate: 0 })
      report = (position) => bar.update(Math.min(Number(position), head), { rate: rate() })
      finish = () => bar.stop()
    } else {
      let last = 0
      let printed: bigint | undefined
      const line = (position: bigint) => {
        if (position === printed) return // the last report and the finish can name the same position
        printed = position
        out.write(
          `${projection.name}: ${position}/${head} (${Math.floor((Number(position) / Math.max(head, 1)) * 100)}%), ${rate()} events/s\n`,
        )
      }
      report = (position) => {
        if (performance.now() - last < 2000) return
        last = performance.now()
        line(position)
      }
      finish = () => line(BigInt(head))
    }
    await rebuildProjection(rt, projection, (n, position) => {
      events += n
      report(position)
    })
    finish()
    const seconds = (performance.now() - started) / 1000
    out.write(
      `${projection.name}: rebuilt from ${events} events in ${seconds.toFixed(2)} s (${Math.round(events / seconds).toLocaleString('en')} events/s), swapped in\n`,
    )
  }
}
