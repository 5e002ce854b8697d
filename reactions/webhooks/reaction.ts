import { isConcurrencyError } from '../../shared/domain/errors.ts'
import { webhookEndpointEventTypes, webhookMessageEventTypes } from '../../shared/domain/events/index.ts'
import { subscribesTo, type WebhookEndpointEvent } from '../../shared/domain/webhooks/endpoint.ts'
import { ofMessageStream, webhookMessageStream } from '../../shared/domain/webhooks/message.ts'
import type { AppendRequest, RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { startReaction } from '../follow.ts'
import { eventId } from '../../shared/infra/id-generator.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { evolveWebhookEndpoint, type WebhookEndpointDoc } from '../../projectors/webhooks/endpoint.ts'
import type { DeliveryBatch, DeliveryQueue } from './delivery-queue.ts'
import { type Audience, messagesOf, type PlannedMessage, sliceFirst } from './plan.ts'

/** The reaction's checkpoint, beside the projections' in the read store. */
export const WEBHOOKS_CHECKPOINT = 'webhooks'

type ReactionRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'ids' | 'logger'>

/**
 * Every account's webhook endpoints as they stood at the event the reaction
 * reads: an endpoint hears of what happens after it was created, never before.
 */
export class EndpointDirectory implements Audience {
  private readonly byAccount = new Map<number, Map<string, WebhookEndpointDoc>>()

  observe(event: RecordedEvent) {
    if (!(webhookEndpointEventTypes as readonly string[]).includes(event.type)) return
    const endpoints = this.byAccount.get(event.metadata.accountId) ?? new Map<string, WebhookEndpointDoc>()
    const [domainEvent] = asDomainEvents<WebhookEndpointEvent>([event])
    endpoints.set(event.stream, evolveWebhookEndpoint(endpoints.get(event.stream), domainEvent!))
    this.byAccount.set(event.metadata.accountId, endpoints)
  }

  listens = (accountId: number) => this.byAccount.has(accountId)

  /** No endpoint anywhere: only endpoint events can matter. */
  get isEmpty() {
    return this.byAccount.size === 0
  }

  recipients: Audience['recipients'] = (event, type) => {
    const endpoints = this.byAccount.get(event.metadata.accountId)
    if (!endpoints) return []
    if (type === 'webhook.test') {
      const tested = endpoints.get(event.stream)
      return tested && !tested.deleted ? [tested] : []
    }
    return [...endpoints.values()].filter((e) => subscribesTo(e, type))
  }

  /** The directory as of `position`, from the endpoint events of the log. */
  static async at(rt: Pick<Runtime, 'eventStore'>, position: bigint) {
    const directory = new EndpointDirectory()
    for (let after: bigint | undefined; ; ) {
      const page = await rt.eventStore.readAll({ after, limit: 1000, types: webhookEndpointEventTypes })
      for (const event of page) {
        if (event.position > position) return directory
        directory.observe(event)
      }
      if (page.length === 0) return directory
      after = page.at(-1)!.position
    }
  }
}

/**
 * Records each planned message as the first event of its own stream, with
 * the batch job it is queued in (`batches`, none for a message queued
 * alone). A message already there (the reaction ran this batch before a
 * crash, or another worker process did) is left as it is.
 */
export async function recordMessages(
  rt: Pick<Runtime, 'eventStore' | 'clock' | 'ids'>,
  planned: PlannedMessage[],
  batches: readonly DeliveryBatch[] = [],
) {
  const now = rt.clock.now()
  const batchOf = new Map<string, string>()
  for (const { streams } of batches) {
    const first = ofMessageStream(streams[0]!).position.toString()
    for (const stream of streams) batchOf.set(stream, first)
  }
  const appends: AppendRequest[] = planned.map((m) => {
    const stream = webhookMessageStream(m.accountId, m.endpointId, m.position)
    return {
      stream,
      expected: 'no_stream',
      events: [
        {
          id: eventId(now.getTime()),
          type: 'WebhookMessageCreated',
          data: {
            delivery_id: rt.ids.next(),
            endpoint_id: m.endpointId,
            position: m.position.toString(),
            type: m.type,
            body: m.body,
            subject: m.subject,
            batch: batchOf.get(stream),
            at: toUnixSeconds(now),
          },
          metadata: {
            accountId: m.accountId,
            correlationId: `webhook_${m.position}`,
            source: 'reaction',
            recordedAt: now.getTime(),
          },
        },
      ],
    }
  })
  if (appends.length === 0) return
  try {
    await rt.eventStore.append(appends)
  } catch (error) {
    if (!isConcurrencyError(error)) throw error
    for (const append of appends) {
      await rt.eventStore.append([append]).catch((one: unknown) => {
        if (!isConcurrencyError(one)) throw one
      })
    }
  }
}

/**
 * Messages a batch job carries at most: what one job holds up if its worker
 * dies. A job's own costs (its turn in the queue, its endpoint read and
 * secrets opened, its last answers awaited) are shared by all it carries;
 * what a crash can send twice is bounded by the sender's records, not by this.
 */
const BATCH_MESSAGES = 1000

/** The planned messages as delivery jobs: one endpoint's messages a job, in log order, a thousand at most. */
export function deliveryBatches(planned: readonly PlannedMessage[]): DeliveryBatch[] {
  const byEndpoint = new Map<string, DeliveryBatch[]>()
  for (const m of planned) {
    const key = `${m.accountId}_${m.endpointId}`
    const jobs = byEndpoint.get(key) ?? []
    let job = jobs.at(-1)
    if (!job || job.streams.length >= BATCH_MESSAGES) {
      job = { accountId: m.accountId, endpointId: m.endpointId, streams: [] }
      jobs.push(job)
    }
    job.streams.push(webhookMessageStream(m.accountId, m.endpointId, m.position))
    byEndpoint.set(key, jobs)
  }
  return [...byEndpoint.values()].flat()
}

/**
 * The webhook reaction: records the messages each batch of the log makes,
 * then hands them to BullMQ. A batch made again after a crash finds its
 * messages already recorded; a crash or an absent Redis after the checkpoint
 * leaves them pending, for the sweep to queue.
 */
export function startWebhookReaction(rt: ReactionRuntime, queue: DeliveryQueue) {
  let directory = new EndpointDirectory()
  return startReaction(rt, {
    name: WEBHOOKS_CHECKPOINT,
    async resume(after) {
      directory = await EndpointDirectory.at(rt, after)
    },
    // With no endpoint anywhere, only the next endpoint event matters; from it on, every event does
    // but the messages' own, which the reaction writes and the sender reads.
    only: () => (directory.isEmpty ? { types: webhookEndpointEventTypes, oneAtATime: true } : undefined),
    passesOver: webhookMessageEventTypes,
    async handle(batch, _signal, whole) {
      const planned = await messagesOf(whole ? sliceFirst(rt.eventStore, batch) : rt.eventStore, batch, directory)
      const batches = deliveryBatches(planned)
      await recordMessages(rt, planned, batches)
      for (const delivery of batches) await queue.enqueue(delivery).catch(() => false)
      return planned.length > 0
    },
  })
}
