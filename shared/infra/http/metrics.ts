import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Queue } from 'bullmq'
import type { EventStore } from '../event-store/port.ts'
import { ShiplogError } from '../../domain/errors.ts'
import { carriesToken } from './operator-token.ts'
import type { App } from './server.ts'
import type { Runtime } from '../runtime.ts'

/** What a process reports beside its requests: each part given when it runs here. */
export interface MetricSources {
  /** The projections whose lag behind the log is reported. */
  projections: readonly string[]
  /** Every BullMQ queue of the process: jobs, webhook deliveries, e-mails, polls. */
  queues: readonly Pick<Queue, 'name' | 'getJobCounts'>[]
  /** Whether Redis answers now: queue counts are not collected while it is away. */
  redisAvailable?: () => boolean
  /** The position in the log each reaction (webhooks, e-mails) has handled. */
  reactions: () => ReadonlyMap<string, bigint>
  /** The token /metrics asks for (SHIPLOG_METRICS_TOKEN); unset, it is open. */
  token?: string
  /** Carrier polling's counts (`<api>|<outcome>`), its ticks, and the APIs stopped by a refused key. */
  carrierPolling?: () => { polls: ReadonlyMap<string, number>; ticks: number; stopped: ReadonlySet<string> } | undefined
  /** Carrier API calls by `api|outcome`, from this process. */
  carrierRequests?: () => ReadonlyMap<string, number>
  /** Sweeps for trackers due a delay look this process made; undefined without the worker role. */
  delaySweeps?: () => number | undefined
}

/**
 * GET /metrics in the Prometheus format (prom-client): process metrics, request
 * durations by route and status, writes' time by stage (stored, then visible)
 * and those answered before they were readable, events appended by type, each
 * projection's lag behind the log, each reaction's position, and every
 * queue's jobs by state. One registry per server, so several servers in one process stay apart.
 */
export function metricsRoutes(
  app: App,
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'observeWrite'>,
  sources: MetricSources,
) {
  const { projections, queues, carrierPolling, carrierRequests } = sources
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  // prom-client's totals of active handles, requests and resources are gauges named like counters, which
  // Prometheus's own checks refuse; the same figures stay, by type, in nodejs_active_handles and its twins.
  for (const total of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    registry.removeSingleMetric(total)
  const durations = new Histogram({
    name: 'shiplog_http_request_duration_seconds',
    help: 'HTTP request durations',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  observeWrites(registry, rt)
  const appended = new Counter({
    name: 'shiplog_events_appended_total',
    help: 'Events appended to the event log by this process, by type',
    labelNames: ['type'],
    registers: [registry],
  })
  rt.eventStore = countingAppends(rt.eventStore, (type) => appended.inc({ type }))
  if (queues.length > 0) {
    new Gauge({
      name: 'shiplog_jobs',
      help: 'Jobs in each BullMQ queue, by state (not collected while Redis is away)',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        if (sources.redisAvailable && !sources.redisAvailable()) return
        for (const queue of queues) {
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed')
          for (const [state, n] of Object.entries(counts)) this.set({ queue: queue.name, state }, n)
        }
      },
    })
  }
  new Gauge({
    name: 'shiplog_reaction_position',
    help: 'The log position each reaction of this process (webhooks, e-mails) has handled',
    labelNames: ['reaction'],
    registers: [registry],
    collect() {
      for (const [reaction, position] of sources.reactions()) this.set({ reaction }, Number(position))
    },
  })
  new Gauge({
    name: 'shiplog_projection_lag_events',
    help: 'How far each projection is behind the head of the event log, in log positions (events, in the embedded store)',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      const head = await rt.eventStore.head()
      for (const name of projections)
        this.set({ projection: name }, Number(head - ((await rt.readStore.checkpoint(name)) ?? 0n)))
    },
  })
  if (carrierRequests) {
    new Counter({
      name: 'shiplog_carrier_requests_total',
      help: 'Calls to carrier tracking APIs by this process since it started, by carrier API and outcome (over_budget: not sent, the day’s budget spent)',
      labelNames: ['carrier', 'outcome'],
      registers: [registry],
      collect() {
        this.reset()
        for (const [key, n] of carrierRequests()) {
          const [carrier, outcome] = key.split('|')
          this.inc({ carrier, outcome }, n)
        }
      },
    })
  }
  if (carrierPolling) {
    new Counter({
      name: 'shiplog_carrier_polls_total',
      help: 'Carrier tracking API calls by this process since it started, by API and outcome',
      labelNames: ['api', 'outcome'],
      registers: [registry],
      collect() {
        this.reset()
        for (const [key, n] of carrierPolling()?.polls ?? []) {
          const [api, outcome] = key.split('|')
          this.inc({ api, outcome }, n)
        }
      },
    })
    new Counter({
      name: 'shiplog_carrier_poll_ticks_total',
      help: 'Times this process looked for the trackers due a poll',
      registers: [registry],
      collect() {
        this.reset()
        this.inc(carrierPolling()?.ticks ?? 0)
      },
    })
    new Gauge({
      name: 'shiplog_carrier_stopped',
      help: '1 for a carrier tracking API no longer polled because it refused the key',
      labelNames: ['api'],
      registers: [registry],
      collect() {
        for (const api of carrierPolling()?.stopped ?? []) this.set({ api }, 1)
      },
    })
  }
  if (sources.delaySweeps) {
    const sweeps = sources.delaySweeps
    new Counter({
      name: 'shiplog_delay_sweeps_total',
      help: 'Times this process looked for the trackers due a delay look',
      registers: [registry],
      collect() {
        this.reset()
        this.inc(sweeps() ?? 0)
      },
    })
  }
  app.addHook('onResponse', async (request, reply) => {
    durations.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unknown', status: reply.statusCode },
      reply.elapsedTime / 1000,
    )
  })
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    if (sources.token && !carriesToken(request.headers.authorization, sources.token)) {
      reply.header('www-authenticate', 'Bearer realm="shiplog metrics"')
      throw new ShiplogError('SHIPLOG_ERR_UNAUTHORIZED', '/metrics needs Authorization: Bearer <SHIPLOG_METRICS_TOKEN>')
    }
    return reply.type(registry.contentType).send(await registry.metrics())
  })
}

/** The same store, counting what each append writes by event type. */
function countingAppends(store: EventStore, count: (type: string) => void): EventStore {
  const counted: EventStore = Object.create(store)
  counted.append = async (requests) => {
    const result = await store.append(requests)
    for (const request of requests) for (const event of request.events) count(event.type)
    return result
  }
  return counted
}

/** A write's time by stage, and the writes answered before they could be read, as the command core tells them. */
function observeWrites(registry: Registry, rt: Pick<Runtime, 'observeWrite'>) {
  const writes = new Histogram({
    name: 'shiplog_write_seconds',
    help: 'Writes (commands that appended) by stage: stored, from the decision until the events are stored; visible, then waiting for the read models to include them',
    labelNames: ['stage'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const unreadable = new Counter({
    name: 'shiplog_write_visibility_timeouts_total',
    help: 'Writes answered before the read models included them: their wait reached SHIPLOG_WRITE_VISIBILITY_WAIT_MS',
    registers: [registry],
  })
  rt.observeWrite = ({ storedSeconds, visible }) => {
    writes.observe({ stage: 'stored' }, storedSeconds)
    if (!visible) return
    writes.observe({ stage: 'visible' }, visible.seconds)
    if (!visible.reached) unreadable.inc()
  }
}
