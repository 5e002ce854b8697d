import { JobFailure, type JobContext } from '../../commands/jobs/context.ts'
import { toNewEvents } from '../../commands/execute.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { type WebhookEndpointEvent, webhookEndpointStream } from '../../shared/domain/webhooks/endpoint.ts'
import {
  decideWebhookMessage,
  evolveWebhookMessageState,
  type WebhookMessageEvent,
  type WebhookMessageState,
  webhookMessageStream,
} from '../../shared/domain/webhooks/message.ts'
import type { JobEvent } from '../../shared/domain/jobs/job.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { evolveWebhookEndpoint, type WebhookEndpointDoc } from '../../projectors/webhooks/endpoint.ts'
import type { DeliveryQueue } from './delivery-queue.ts'
import { type Audience, messagesOf } from './plan.ts'
import { recordMessages } from './reaction.ts'

/** What `POST /v2/webhook_endpoints/{id}/replay` asked for, as the job's payload holds it. */
export interface ReplayRequest {
  endpoint_id: number
  since?: number
  from_position?: string
}

const PAGE = 1000

/**
 * The replay job: makes again, from the log, every message of the account
 * from the point asked for up to where the log stood when the job started,
 * for this endpoint and the types it takes, and sends each again. A message
 * the endpoint already had goes back to pending under its original
 * `webhook-id`; one from before the endpoint existed is made now.
 */
export async function replayWebhookMessages(ctx: JobContext, deliveries: DeliveryQueue | undefined) {
  const { rt, accountId } = ctx
  const [queued] = asDomainEvents<JobEvent>(await rt.eventStore.readStream(ctx.stream, 0))
  if (queued?.type !== 'JobQueued') throw new Error(`job ${ctx.job.id} has no JobQueued event`)
  const request = queued.data.payload.body as unknown as ReplayRequest
  const endpointStream = webhookEndpointStream(accountId, request.endpoint_id)
  const endpoint = asDomainEvents<WebhookEndpointEvent>(await rt.eventStore.readStream(endpointStream)).reduce<
    WebhookEndpointDoc | undefined
  >(evolveWebhookEndpoint, undefined)
  if (!endpoint || endpoint.deleted) throw new JobFailure('The webhook endpoint was deleted')
  const audience: Audience = {
    recipients: (event, type) => {
      if (event.metadata.accountId !== accountId) return []
      if (type === 'webhook.test') return event.stream === endpointStream ? [endpoint] : []
      return endpoint.enabled_events === null || endpoint.enabled_events.includes(type) ? [endpoint] : []
    },
  }
  const until = await rt.eventStore.head()
  const fromPosition = request.from_position === undefined ? 0n : BigInt(request.from_position)
  const sinceMs = (request.since ?? 0) * 1000
  let after: bigint | undefined = fromPosition > 0n ? fromPosition - 1n : undefined
  let replayed = 0
  for (;;) {
    const page = await rt.eventStore.readAll({ after, limit: PAGE })
    const events = page.filter((e) => e.position <= until && e.metadata.recordedAt >= sinceMs)
    const planned = await messagesOf(rt.eventStore, events, audience)
    for (const message of planned) {
      const stream = webhookMessageStream(accountId, message.endpointId, message.position)
      const existing = await rt.eventStore.readStream(stream)
      if (existing.length === 0) await recordMessages(rt, [message])
      else {
        const now = rt.clock.now()
        const replay = { type: 'ReplayWebhookMessage' as const, data: { job_id: ctx.job.id, at: toUnixSeconds(now) } }
        const metadata = ctx.metadata()
        const state = asDomainEvents<WebhookMessageEvent>(existing).reduce<WebhookMessageState | undefined>(
          evolveWebhookMessageState,
          undefined,
        )
        const events = decideWebhookMessage(replay, state)
        // A sender recording an attempt meanwhile is retried by the job: replays are at-least-once.
        await rt.eventStore.append([{ stream, expected: existing.length - 1, events: toNewEvents(events, metadata) }])
      }
      await deliveries?.enqueueNow({ accountId, stream }).catch(() => false)
      replayed++
    }
    if (page.length < PAGE || page.at(-1)!.position >= until) break
    after = page.at(-1)!.position
  }
  await ctx.appendWithProgress([], {
    type: 'RecordItems',
    chunk_id: rt.ids.next(),
    results: [
      {
        status: 200,
        body: {
          endpoint_id: endpoint.id,
          messages: replayed,
          from_position: fromPosition.toString(),
          to_position: until.toString(),
        },
      },
    ],
    at: toUnixSeconds(rt.clock.now()),
  })
}
