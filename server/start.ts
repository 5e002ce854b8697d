import type { Redis } from 'ioredis'
import { commandApi } from '../command-api/index.ts'
import { projections } from '../projectors/projections.ts'
import type { ProjectorRunner } from '../projectors/runner.ts'
import { startProjectorThread } from '../projectors/projector-thread.ts'
import { ProjectionProgress } from '../shared/infra/read-store/projection-progress.ts'
import { queryApi } from '../query-api/index.ts'
import type { Clock } from '../shared/infra/clock.ts'
import type { Config, Role } from '../shared/infra/config.ts'
import { healthRoutes } from '../shared/infra/http/health.ts'
import { apiNotes } from './api-reference.ts'
import { queueDashboard } from '../shared/infra/http/queue-dashboard.ts'
import { metricsRoutes } from '../shared/infra/http/metrics.ts'
import { createHttpServer, type App } from '../shared/infra/http/server.ts'
import { connectRedis, isRedisReady } from '../shared/infra/jobs/redis.ts'
import { createJobQueue, type JobQueue } from '../shared/infra/jobs/queue.ts'
import { startJobWorker } from '../jobs/worker.ts'
import { createDeliveryQueue, type DeliveryQueue } from '../reactions/webhooks/delivery-queue.ts'
import { startWebhookReaction } from '../reactions/webhooks/reaction.ts'
import { startWebhookSender } from '../reactions/webhooks/sender.ts'
import { createEmailQueue, type EmailQueue, startEmailReaction } from '../reactions/emails/reaction.ts'
import { startEmailSender } from '../reactions/emails/sender.ts'
import { createPollQueues, type PollQueues, startCarrierPolling } from '../reactions/polls/poller.ts'
import { configuredCarrierApis } from '../shared/infra/carriers/apis.ts'
import { embeddedFiles, openRuntime, type Runtime, StartupError } from '../shared/infra/runtime.ts'
import { startCheckpointer } from '../shared/infra/sqlite/checkpoints.ts'
import type { Logger } from 'pino'

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string
  runtime: Runtime
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
  const carrierApis = configuredCarrierApis(config)
  let checkpointer: { stop(): Promise<void> } | undefined
  let app: App | undefined
  let redis: Redis | undefined
  let queue: JobQueue | undefined
  let projector: ProjectorRunner | undefined
  let workerConnection: Redis | undefined
  let worker: ReturnType<typeof startJobWorker> | undefined
  let deliveries: DeliveryQueue | undefined
  let webhookConnection: Redis | undefined
  let webhookReaction: ReturnType<typeof startWebhookReaction> | undefined
  let webhookSender: ReturnType<typeof startWebhookSender> | undefined
  let pollQueues: PollQueues = new Map()
  let polling: Awaited<ReturnType<typeof startCarrierPolling>> | undefined
  let emails: EmailQueue | undefined
  let emailConnection: Redis | undefined
  let emailReaction: ReturnType<typeof startEmailReaction> | undefined
  let emailSender: ReturnType<typeof startEmailSender> | undefined
  /** Stops what has started, HTTP first and the stores last: on close, and when a start fails half-way. */
  let closing: Promise<void> | undefined
  // Once: a second call (a test's teardown after a restart) waits for the first.
  const close = () => (closing ??= stopAll())
  const stopAll = async () => {
    await app?.close()
    await worker?.close()
    await webhookReaction?.stop()
    await webhookSender?.close()
    await polling?.close()
    await emailReaction?.stop()
    await emailSender?.close()
    await projector?.stop()
    // A queue whose Redis is away has nothing to flush: it is only disconnected.
    if (redis && isRedisReady(redis))
      await Promise.all([
        queue?.close(),
        deliveries?.close(),
        emails?.close(),
        ...[...pollQueues.values()].map((q) => q.close()),
      ])
    workerConnection?.disconnect()
    webhookConnection?.disconnect()
    emailConnection?.disconnect()
    redis?.disconnect()
    await rt.close()
    await checkpointer?.stop()
  }

  try {
    if (files.length > 0) checkpointer = await startCheckpointer(files, rt.logger)
    app = await createHttpServer(rt, apiNotes)
    if (roles.has('worker') || roles.has('command')) {
      redis = connectRedis(config.REDIS_URL, rt.logger)
      queue = createJobQueue(config.QUEUE_NAME, redis)
      deliveries = createDeliveryQueue(config.QUEUE_NAME, redis)
      const retries = { attempts: config.SHIPLOG_MAIL_ATTEMPTS, firstDelayMs: config.SHIPLOG_MAIL_RETRY_DELAY_MS }
      if (config.SMTP_URL) emails = createEmailQueue(config.QUEUE_NAME, redis, retries)
      pollQueues = createPollQueues(config.QUEUE_NAME, redis, carrierApis)
    }
    const watched = roles.has('query') || roles.has('projector') ? projections.map((p) => p.name) : []
    healthRoutes(app, rt, { projections: watched, redis: redis && (() => isRedisReady(redis!)) })
    metricsRoutes(app, rt, watched, queue, () => polling?.stats)
    if (queue && deliveries) {
      const queues = [
        queue.bull,
        deliveries.bull,
        ...(emails ? [emails.bull] : []),
        ...[...pollQueues.values()].map((q) => q.bull),
      ]
      await queueDashboard(app, queues, config.SHIPLOG_ADMIN_TOKEN)
    }
    if (roles.has('command')) commandApi(app, rt, queue!, pollQueues)
    if (roles.has('query')) queryApi(app, rt)
    if (roles.has('projector')) {
      rt.projections = new ProjectionProgress()
      projector = await startProjectorThread(config, walCheckpoints, rt.logger, rt.projections)
    }
    // BullMQ's worker blocks on its own connection.
    if (roles.has('worker')) {
      workerConnection = connectRedis(config.REDIS_URL, rt.logger, 'worker')
      worker = startJobWorker(rt, queue!, workerConnection, deliveries)
      // Webhooks: the reaction following the log, and the sender on a blocking connection of its own.
      webhookReaction = startWebhookReaction(rt, deliveries!)
      webhookConnection = connectRedis(config.REDIS_URL, rt.logger, 'webhooks')
      webhookSender = startWebhookSender(rt, deliveries!, webhookConnection)
      // Customer e-mails, when there is an SMTP server to send them through.
      if (config.SMTP_URL) {
        emailReaction = startEmailReaction(rt, emails!)
        emailConnection = connectRedis(config.REDIS_URL, rt.logger, 'emails')
        emailSender = startEmailSender(rt, emails!, emailConnection, config.SMTP_URL)
      } else rt.logger.warn('SMTP_URL is not set: customer e-mails are built, not sent')
      if (carrierApis.length > 0) {
        polling = await startCarrierPolling(rt, pollQueues, carrierApis, {
          queue: redis!,
          worker: () => connectRedis(config.REDIS_URL, rt.logger, 'carrier-polling'),
        })
      }
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
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.PORT
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST
  rt.logger.info(
    { roles: [...roles], port, eventStore: rt.eventStore.kind, readStore: rt.readStore.kind },
    'shiplog started',
  )

  return {
    url: `http://${host}:${port}`,
    runtime: rt,
    close,
  }
}
