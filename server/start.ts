import { commandApi } from '../command-api/index.ts'
import { projections } from '../projectors/all-projections.ts'
import { startProjectorThread } from '../projectors/projector-thread.ts'
import { ProjectionProgress } from '../shared/infra/read-store/projection-progress.ts'
import { queryApi } from '../query-api/index.ts'
import { consoleRoutes } from '../console/routes.ts'
import { createAttemptLimits } from '../shared/infra/attempt-limits.ts'
import type { Clock } from '../shared/infra/clock.ts'
import { type Config, type Role, smsSettings } from '../shared/infra/config.ts'
import { healthRoutes } from '../shared/infra/http/health.ts'
import { apiNotes } from './api-reference.ts'
import { queueDashboard } from '../shared/infra/http/queue-dashboard.ts'
import { metricsRoutes } from '../shared/infra/http/metrics.ts'
import { type App, createHttpServer } from '../shared/infra/http/server.ts'
import { connectRedis, isRedisReady } from '../shared/infra/jobs/redis.ts'
import { createJobQueue } from '../shared/infra/jobs/queue.ts'
import { startJobWorker } from '../jobs/worker.ts'
import { createDeliveryQueue } from '../reactions/webhooks/delivery-queue.ts'
import { startWebhookReaction } from '../reactions/webhooks/reaction.ts'
import { startWebhookSender } from '../reactions/webhooks/sender.ts'
import { sendEmail, smtpTransport } from '../reactions/emails/sender.ts'
import {
  createPayloadQueue,
  startPayloadReaction,
  startPayloadSender,
} from '../reactions/notifications/payload-senders.ts'
import { sendSmsPayload } from '../reactions/sms/sender.ts'
import { createPollQueues, startCarrierPolling } from '../reactions/polls/poller.ts'
import { createDelayQueue, startDelaySweep } from '../reactions/delays/sweep.ts'
import { startStoreOrdersReaction } from '../reactions/connections/store-orders.ts'
import {
  createStoreUpdateQueue,
  startStoreUpdatePlanning,
  startStoreUpdateSender,
} from '../reactions/connections/store-updates.ts'
import { carrierApiSettings, type ConfiguredCarrierApi } from '../shared/infra/carriers/apis.ts'
import { type CarrierRequestCounts, carrierCalls } from '../shared/infra/carriers/calls.ts'
import { redisLedger } from '../shared/infra/carriers/ledger.ts'
import { carrierApiRoutes } from '../query-api/carrier-apis/routes.ts'
import { embeddedFiles, openRuntime, type Runtime, StartupError } from '../shared/infra/runtime.ts'
import { startCheckpointer } from '../shared/infra/sqlite/checkpoints.ts'
import type { Logger } from 'pino'

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string
  runtime: Runtime
  /** The OpenAPI document GET /openapi.json serves: this process's routes. */
  openapi(): unknown
  close(): Promise<void>
}

/**
 * Starts the given roles in this process. All four make the one-machine
 * layout; a subset makes one service of the distributed layout. Only
 * configuration differs between the two.
 */
export async function startServer(
  config: Config,
  options: { roles?: readonly Role[]; clock?: Clock; logger?: Logger } = {},
): Promise<RunningServer> {
  const roles = new Set(options.roles ?? config.ROLES)
  // The embedded stores' logs are checkpointed by a thread of their own, not inside requests.
  const files = embeddedFiles(config)
  const walCheckpoints = files.length > 0 ? 'background' : 'inline'
  const rt = await openRuntime(config, { ...options, walCheckpoints })
  const carrierSettings = carrierApiSettings(config)
  const carrierApis = carrierSettings.filter((api) => api.adapter)
  const carrierRequests: CarrierRequestCounts = new Map()
  const parts = startedParts(rt.logger)
  let app: App | undefined
  let polling: Awaited<ReturnType<typeof startCarrierPolling>> | undefined
  let delaySweep: Awaited<ReturnType<typeof startDelaySweep>> | undefined
  const reactions: { name: string; position(): bigint }[] = []
  // Once: a second call (a test's teardown after a restart) waits for the first.
  let closing: Promise<void> | undefined
  // HTTP first, so no request meets a stopped part; then the rest in the reverse order of their start.
  const close = () =>
    (closing ??= (async () => {
      await app?.close()
      await parts.stopAll()
    })())

  try {
    if (files.length > 0) {
      const checkpointer = await startCheckpointer(files, rt.logger)
      parts.push(() => checkpointer.stop())
    }
    // The stores close before their checkpointer stops.
    parts.push(() => rt.close())
    app = await createHttpServer(rt, apiNotes)
    const queues =
      roles.has('worker') || roles.has('command')
        ? openQueues(config, rt, carrierApis, carrierRequests, parts)
        : undefined
    const watched = roles.has('query') || roles.has('projector') ? projections.map((p) => p.name) : []
    healthRoutes(app, rt, { projections: watched, redis: queues && (() => isRedisReady(queues.redis)) })
    metricsRoutes(app, rt, {
      projections: watched,
      queues: queues?.all ?? [],
      redisAvailable: queues && (() => isRedisReady(queues.redis)),
      reactions: () => new Map(reactions.map((r) => [r.name, r.position()])),
      carrierPolling: () => polling?.stats,
      delaySweeps: () => delaySweep?.sweeps(),
      carrierRequests: () => carrierRequests,
      token: config.SHIPLOG_METRICS_TOKEN,
    })
    if (queues) await queueDashboard(app, queues.all, config.SHIPLOG_ADMIN_TOKEN)
    if (roles.has('command')) commandApi(app, rt, queues!)
    if (queues) carrierApiRoutes(app, carrierSettings, queues.carrierLedger)
    if (roles.has('query')) {
      const limitsRedis = connectRedis(config.REDIS_URL, rt.logger, 'limits', { failFast: true })
      parts.push(() => limitsRedis.disconnect())
      const limits = createAttemptLimits(limitsRedis, config.QUEUE_NAME, () => rt.clock.nowMs())
      queryApi(app, rt, limits)
      // The console reads like the query API, and writes through the same commands as the API.
      consoleRoutes(app, rt, limits, {
        jobs: queues?.jobs,
        polls: queues?.polls,
        deliveries: queues?.deliveries,
        carriers: { settings: carrierSettings, ledger: queues?.carrierLedger },
      })
    }
    if (roles.has('projector')) {
      rt.projections = new ProjectionProgress()
      const projector = await startProjectorThread(config, walCheckpoints, rt.logger, rt.projections)
      parts.push(() => projector.stop())
    }
    if (roles.has('worker')) {
      const started = await startWorkerRole(config, rt, queues!, parts)
      polling = started.polling
      delaySweep = started.delaySweep
      reactions.push(...started.reactions)
    }
    await app.listen({ port: config.PORT, host: config.HOST }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new StartupError(`port ${config.PORT} is already in use: set PORT`)
      if (error.code === 'EACCES') throw new StartupError(`port ${config.PORT} needs privileges: set PORT`)
      throw error
    })
  } catch (error) {
    await close().catch((closing: unknown) => rt.logger.error({ err: closing }, 'stopping after a failed start failed'))
    throw error
  }
  const address = app!.server.address()
  const port = typeof address === 'object' && address ? address.port : config.PORT
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST
  rt.logger.info(
    { roles: [...roles], port, eventStore: rt.eventStore.kind, readStore: rt.readStore.kind },
    'shiplog started',
  )

  return {
    url: `http://${host}:${port}`,
    openapi: () => app!.swagger(),
    runtime: rt,
    close,
  }
}

/** The parts a start has started, each with how to stop it: stopped in reverse, each once. */
function startedParts(logger: Logger) {
  const stops: (() => Promise<unknown> | unknown)[] = []
  return {
    push(stop: () => Promise<unknown> | unknown) {
      stops.push(stop)
    },
    async stopAll() {
      for (let stop = stops.pop(); stop; stop = stops.pop()) {
        await Promise.resolve()
          .then(stop)
          .catch((error: unknown) => logger.error({ err: error }, 'a part failed to stop'))
      }
    },
  }
}
type Parts = ReturnType<typeof startedParts>

/** The BullMQ queues of jobs, webhook deliveries, e-mails and polls, on one Redis connection. */
function openQueues(
  config: Config,
  rt: Runtime,
  carrierApis: readonly ConfiguredCarrierApi[],
  carrierRequests: CarrierRequestCounts,
  parts: Parts,
) {
  const redis = connectRedis(config.REDIS_URL, rt.logger)
  parts.push(() => redis.disconnect())
  const carrierLedger = redisLedger(redis, config.QUEUE_NAME, () => rt.clock.nowMs())
  const carriers = carrierApis.map((api) => ({
    api: carrierCalls(api.adapter!, api, carrierLedger, carrierRequests, () => rt.clock.nowMs()),
    perSecond: api.perSecond,
  }))
  const jobs = createJobQueue(config.QUEUE_NAME, redis)
  const deliveries = createDeliveryQueue(config.QUEUE_NAME, redis)
  const mailRetries = { attempts: config.SHIPLOG_MAIL_ATTEMPTS, firstDelayMs: config.SHIPLOG_MAIL_RETRY_DELAY_MS }
  const emails = config.SMTP_URL ? createPayloadQueue('email', config.QUEUE_NAME, redis, mailRetries) : undefined
  const smsRetries = { attempts: config.SHIPLOG_SMS_ATTEMPTS, firstDelayMs: config.SHIPLOG_SMS_RETRY_DELAY_MS }
  const sms = smsSettings(config) ? createPayloadQueue('sms', config.QUEUE_NAME, redis, smsRetries) : undefined
  const polls = createPollQueues(config.QUEUE_NAME, redis, carriers)
  const delays = createDelayQueue(config.QUEUE_NAME, redis)
  const storeUpdates = createStoreUpdateQueue(config.QUEUE_NAME, redis)
  const closable = [
    jobs,
    deliveries,
    delays,
    storeUpdates,
    ...(emails ? [emails] : []),
    ...(sms ? [sms] : []),
    ...polls.values(),
  ]
  // A queue whose Redis is away has nothing to flush: it is only disconnected.
  parts.push(() => isRedisReady(redis) && Promise.all(closable.map((q) => q.close())))
  return {
    redis,
    jobs,
    deliveries,
    delays,
    storeUpdates,
    emails,
    sms,
    polls,
    carriers,
    carrierLedger,
    all: closable.map((q) => q.bull),
  }
}
type Queues = ReturnType<typeof openQueues>

/**
 * The worker role: jobs, the webhook and e-mail reactions with their senders,
 * the delay sweep and carrier polling. Each BullMQ worker blocks on a Redis connection of its own.
 */
async function startWorkerRole(config: Config, rt: Runtime, queues: Queues, parts: Parts) {
  const connection = (name: string) => {
    const redis = connectRedis(config.REDIS_URL, rt.logger, name)
    parts.push(() => redis.disconnect())
    return redis
  }
  const worker = startJobWorker(rt, queues.jobs, connection('worker'), queues.deliveries)
  parts.push(() => worker.close())
  const webhookReaction = startWebhookReaction(rt, queues.deliveries)
  parts.push(() => webhookReaction.stop())
  const storeOrders = startStoreOrdersReaction(rt)
  parts.push(() => storeOrders.stop())
  const storeUpdatePlanning = startStoreUpdatePlanning(rt, queues.storeUpdates)
  parts.push(() => storeUpdatePlanning.stop())
  const storeUpdateSender = await startStoreUpdateSender(rt, queues.storeUpdates, connection('store-updates'))
  parts.push(() => storeUpdateSender.close())
  const reactions = [webhookReaction, storeOrders, storeUpdatePlanning]
  const webhookSender = startWebhookSender(rt, queues.deliveries, connection('webhooks'))
  parts.push(() => webhookSender.close())
  if (config.SMTP_URL && queues.emails) {
    const emailReaction = startPayloadReaction(rt, queues.emails, 'email')
    parts.push(() => emailReaction.stop())
    reactions.push(emailReaction)
    const transport = smtpTransport(config.SMTP_URL)
    const emailSender = startPayloadSender(rt, queues.emails, connection('emails'), 'email', (email, attempt) =>
      sendEmail(rt, transport, email, attempt.last),
    )
    parts.push(async () => {
      await emailSender.close()
      transport.close()
    })
  } else rt.logger.warn('SMTP_URL is not set: customer e-mails are built, not sent')
  const sms = smsSettings(config)
  if (sms && queues.sms) {
    const smsReaction = startPayloadReaction(rt, queues.sms, 'sms')
    parts.push(() => smsReaction.stop())
    reactions.push(smsReaction)
    const smsSender = startPayloadSender(rt, queues.sms, connection('sms'), 'sms', (payload, attempt) =>
      sendSmsPayload(rt, sms, payload, attempt),
    )
    parts.push(() => smsSender.close())
  }
  const delaySweep = await startDelaySweep(rt, queues.delays, {
    queue: queues.redis,
    worker: () => connectRedis(config.REDIS_URL, rt.logger, 'delay-sweep'),
  })
  parts.push(() => delaySweep.close())
  if (queues.carriers.length === 0) return { reactions, delaySweep, polling: undefined }
  const polling = await startCarrierPolling(rt, queues.polls, queues.carriers, {
    queue: queues.redis,
    worker: () => connectRedis(config.REDIS_URL, rt.logger, 'carrier-polling'),
  })
  parts.push(() => polling.close())
  return { reactions, delaySweep, polling }
}
