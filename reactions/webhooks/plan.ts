import type { DomainEvent } from '../../shared/domain/events/index.ts'
import type { WebhookMessageType } from '../../shared/domain/events/webhook-events.ts'
import type { JobResult } from '../../shared/domain/events/job-events.ts'
import type { JobEvent } from '../../shared/domain/jobs/job.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import type { WebhookEndpointEvent } from '../../shared/domain/webhooks/endpoint.ts'
import { type MessageOf, messageOf } from '../../shared/domain/webhooks/event-messages.ts'
import type { EventStore, RecordedEvent } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents, sameAppend } from '../../shared/infra/event-store/recorded.ts'
import { evolveJob, renderJob, type JobDoc } from '../../projectors/jobs/job.ts'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { evolveOrder } from '../../shared/domain/orders/evolve-document.ts'
import { trackerOfOrder } from '../../projectors/orders/tracker-index.ts'
import { renderNotification, renderOrder, renderTracker } from '../../projectors/resources/render.ts'
import { findNotification } from '../../shared/domain/orders/document.ts'
import { Expansion, orderExpandPaths, trackerExpandPaths } from '../../projectors/resources/expansion.ts'
import {
  evolveWebhookEndpoint,
  renderWebhookEndpoint,
  type WebhookEndpointDoc,
} from '../../projectors/webhooks/endpoint.ts'

/** A message decided for one endpoint: what the reaction records and the sender sends. */
export interface PlannedMessage {
  accountId: number
  endpointId: number
  position: bigint
  type: WebhookMessageType
  body: string
  /** The stream of the event it tells of. */
  subject: string
}

/** Who hears of the events of the log. */
export interface Audience {
  /** Sees every event, in log order, before any message of it is addressed. */
  observe?(event: RecordedEvent): void
  /** Whether anyone may hear of this account's events: when not, the event is not even read further. */
  listens?(accountId: number): boolean
  /** The endpoints a message of this type from this event goes to. */
  recipients(event: RecordedEvent, type: WebhookMessageType): readonly { id: number }[]
}

const fullOrder = Expansion.full(orderExpandPaths)
const fullTracker = Expansion.full(trackerExpandPaths)
const fullNotification = Expansion.full(['notification_payloads', 'notification_type'])

/**
 * The messages a slice of the log makes, in log order. Each carries its
 * resource as `GET` renders it with every expansion, as it stood right after
 * the command that wrote the event (read from the event's own stream), so a
 * message made again by a replay is the same message.
 */
export async function messagesOf(
  store: Pick<EventStore, 'readStreams'>,
  events: readonly RecordedEvent[],
  audience: Audience,
): Promise<PlannedMessage[]> {
  // First the events some endpoint listens to, judged by their type alone (a
  // command's other events can only remove a message, never add one)...
  const candidates: { event: RecordedEvent; to: readonly { id: number }[] }[] = []
  for (const event of events) {
    audience.observe?.(event)
    if (audience.listens && !audience.listens(event.metadata.accountId)) continue
    const alone = messageOf(event as unknown as DomainEvent, [event as unknown as DomainEvent])
    if (!alone) continue
    const to = audience.recipients(event, alone.type)
    if (to.length > 0) candidates.push({ event, to })
  }
  if (candidates.length === 0) return []
  // ...then their streams, each read once, to see each event among its command's.
  const streams = [...new Set(candidates.map((c) => c.event.stream))]
  const read = await store.readStreams(streams.map((stream) => ({ stream })))
  const history = new Map(streams.map((s, i) => [s, read[i]!]))
  const folds = new Folds()
  const planned: PlannedMessage[] = []
  for (const { event, to } of candidates) {
    const stream = history.get(event.stream)!
    const [first, last] = appendAround(stream, event.revision)
    const append = asDomainEvents(stream.slice(first, last + 1))
    const message = messageOf(append[event.revision - first]!, append)
    if (!message) continue
    const object = renderSubject(message, (evolve) => folds.fold(event.stream, stream, last, evolve))
    if (object === undefined) continue
    const body = JSON.stringify({
      type: message.type,
      timestamp: new Date(event.metadata.recordedAt).toISOString(),
      position: event.position.toString(),
      data: { object, ...(message.previous ? { previous: message.previous } : {}) },
    })
    for (const endpoint of to) {
      planned.push({
        accountId: event.metadata.accountId,
        endpointId: endpoint.id,
        position: event.position,
        type: message.type,
        body,
        subject: event.stream,
      })
    }
  }
  return planned
}

/** The revisions of the one command's append that wrote the event at `revision` (sameAppend). */
function appendAround(stream: readonly RecordedEvent[], revision: number): [number, number] {
  const at = stream[revision]!
  const same = (e: RecordedEvent | undefined) => e !== undefined && sameAppend(e, at)
  let first = revision
  let last = revision
  while (same(stream[first - 1])) first--
  while (same(stream[last + 1])) last++
  return [first, last]
}

/**
 * Reads streams from a whole slice of the log (every event in its range, of
 * any type) where it can, else from the store: a stream the slice holds from
 * its first event, its last one before the slice's end. An append's events
 * for one stream follow one another in the log, so the log's next event
 * after that one, in the slice and not the stream's, shows that its append
 * ends there too. A reaction planning the batch it has just read then reads
 * again only the streams older than the batch, and parses each event once.
 */
export function sliceFirst(
  store: Pick<EventStore, 'readStreams'>,
  slice: readonly RecordedEvent[],
): Pick<EventStore, 'readStreams'> {
  const end = slice.at(-1)
  const held = new Map<string, RecordedEvent[]>()
  const partial = new Set<string>()
  for (const event of slice) {
    const events = held.get(event.stream)
    if (events === undefined && event.revision === 0) held.set(event.stream, [event])
    else if (events !== undefined && events.length === event.revision) events.push(event)
    else partial.add(event.stream)
  }
  const whole = (stream: string) => {
    const events = held.get(stream)
    if (events === undefined || partial.has(stream)) return undefined
    // An append reaching the slice's end may go on in the log after it.
    return events.at(-1) === end ? undefined : events
  }
  return {
    async readStreams(reads) {
      const fromSlice = reads.map((read) => whole(read.stream)?.slice(read.fromRevision ?? 0))
      const missing = reads.filter((_, i) => fromSlice[i] === undefined)
      const read = missing.length > 0 ? await store.readStreams(missing) : []
      let next = 0
      return fromSlice.map((events) => events ?? read[next++]!)
    },
  }
}

/**
 * Each stream's events folded up to a revision, carried forward from the
 * last fold of that stream: a batch's messages fold each stream once, however
 * many of its events make one. (A stream's category fixes its evolve.)
 */
class Folds {
  private readonly folded = new Map<string, { last: number; value: unknown }>()

  fold<T>(
    stream: string,
    events: readonly RecordedEvent[],
    last: number,
    evolve: (value: T | undefined, event: DomainEvent) => T,
  ) {
    const known = this.folded.get(stream)
    const from = known && known.last <= last ? known : { last: -1, value: undefined }
    let value = from.value as T | undefined
    for (let revision = from.last + 1; revision <= last; revision++) {
      value = evolve(value, asDomainEvents([events[revision]!])[0]!)
    }
    this.folded.set(stream, { last, value })
    return value
  }
}

type FoldTo = <T>(evolve: (value: T | undefined, event: DomainEvent) => T) => T | undefined

/** A job as GET /v2/jobs/{id} renders it: the job and its results, in order. */
interface JobWithResults {
  job: JobDoc
  results: JobResult[]
}

const evolveJobWithResults = (value: JobWithResults | undefined, event: DomainEvent): JobWithResults => ({
  job: evolveJob(value?.job, event as JobEvent),
  results:
    event.type === 'JobItemsProcessed' ? [...(value?.results ?? []), ...event.data.results] : (value?.results ?? []),
})

function renderSubject(message: MessageOf, foldTo: FoldTo): unknown {
  const subject = message.subject
  switch (subject.kind) {
    case 'order':
    case 'tracker':
    case 'notification': {
      const order = foldTo<OrderDoc>((doc, e) => evolveOrder(doc, e as OrderEvent))
      if (!order) return undefined
      if (subject.kind === 'order') return renderOrder(order, fullOrder)
      if (subject.kind === 'notification') {
        const found = findNotification(order, subject.notificationId)
        return found && renderNotification(found.notification, fullNotification, '')
      }
      const tracker = trackerOfOrder(order, subject.trackerId)
      return tracker && renderTracker(tracker, fullTracker, '')
    }
    case 'job': {
      const folded = foldTo(evolveJobWithResults)
      return folded && renderJob(folded.job, folded.results)
    }
    case 'webhook_endpoint': {
      const endpoint = foldTo<WebhookEndpointDoc>((doc, e) => evolveWebhookEndpoint(doc, e as WebhookEndpointEvent))
      return endpoint && renderWebhookEndpoint(endpoint)
    }
  }
}

/**
 * The messages of the given events of the log, each as its webhook carries
 * it (the body, by position): what GET /v2/events answers. An event its
 * command made silent (an upsert's `order.updated` beside its
 * `order.created`) gives none.
 */
export async function messagesAt(
  store: Pick<EventStore, 'readStreams'>,
  refs: readonly { stream: string; position: bigint }[],
): Promise<Map<bigint, PlannedMessage>> {
  const streams = [...new Set(refs.map((r) => r.stream))]
  const read = await store.readStreams(streams.map((stream) => ({ stream })))
  const history = new Map(streams.map((s, i) => [s, read[i]!]))
  const wanted = new Set(refs.map((r) => r.position))
  const events = [...history.values()]
    .flat()
    .filter((e) => wanted.has(e.position))
    .sort((a, b) => (a.position < b.position ? -1 : 1))
  // The streams are read once: messagesOf reads them again from here.
  const cached = { readStreams: async (asked: { stream: string }[]) => asked.map((a) => history.get(a.stream) ?? []) }
  const everyone = { recipients: () => [{ id: 0 }] }
  const messages = await messagesOf(cached as Pick<EventStore, 'readStreams'>, events, everyone)
  return new Map(messages.map((m) => [m.position, m]))
}
