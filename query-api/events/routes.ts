import type { ServerResponse } from 'node:http'
import { z } from 'zod'
import { type EventIndexDoc, publicEventsOf } from '../../projectors/all-projections.ts'
import { orderDocumentKeyOf } from '../../projectors/orders/tracker-index.ts'
import {
  jobResource,
  notificationResource,
  orderResource,
  trackerResource,
  webhookEndpointResource,
} from '../../projectors/resources/schemas.ts'
import { messagesAt } from '../../reactions/webhooks/plan.ts'
import { notFound, ShiplogError } from '../../shared/domain/errors.ts'
import { type WebhookMessageType, webhookMessageTypes } from '../../shared/domain/events/webhook-events.ts'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { webhookIdOf } from '../../shared/domain/webhooks/message.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import { type Condition, meetsConditions } from '../../shared/infra/read-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { timeConditions, timeFilter } from '../orders/filters.ts'
import { listEnvelope, pageOf, paginationQuery } from '../shared/pagination.ts'

/*
 * GET /v2/events, /v2/events/{id} and the live /v2/events/stream: the
 * account's public events, each exactly the message a webhook carries (its
 * `id` the `webhook-id`), whether or not an endpoint subscribes to it. They
 * are the log's own events, rendered from their streams when asked: kept as
 * long as the log.
 */

const EVENTS = collections.public_events.name
const ORDERS = collections.orders.name
const TRACKERS = collections.trackers.name

/** The resource each type's `data.object` is. */
const subjectOf: Record<WebhookMessageType, z.ZodType> = {
  'order.created': orderResource,
  'order.updated': orderResource,
  'tracker.created': trackerResource,
  'tracker.updated': trackerResource,
  'tracker.status_changed': trackerResource,
  'tracker.event_added': trackerResource,
  'tracker.delayed': trackerResource,
  'tracker.delay_cleared': trackerResource,
  'job.completed': jobResource,
  'job.failed': jobResource,
  'notification.dispatched': notificationResource,
  'webhook.test': webhookEndpointResource,
}
const schemaName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Event`

/** One schema per message type: the webhook's body, with its id. */
const eventSchemas = webhookMessageTypes.map((type) =>
  z
    .object({
      id: z.string().meta({ description: 'msg_<position>: the webhook-id of the same message' }),
      object: z.literal('event'),
      type: z.literal(type),
      timestamp: z.string().meta({ description: 'When the event was recorded, ISO 8601' }),
      position: z.string().meta({ description: 'The event’s position in the log, in decimal digits' }),
      data: z.object({
        object: subjectOf[type],
        previous: z.record(z.string(), z.unknown()).optional(),
      }),
    })
    .meta({ id: schemaName(type) }),
)
type AnyEvent = z.ZodType<unknown>
export const publicEvent = z
  .union(eventSchemas as unknown as [AnyEvent, AnyEvent, ...AnyEvent[]])
  .meta({ id: 'PublicEvent' })
const eventList = z
  .object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(publicEvent) })
  .meta({ id: 'PublicEventList' })

const positiveId = z.coerce.number().int('must be an integer id').positive('must be a positive id')
const knownTypes = new Set<string>(webhookMessageTypes)
/** `type=a,b` or `type=a&type=b`; an unknown type is refused by the parameter's name, saying which. */
const typeList = z
  .preprocess(
    (v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((t) => String(t).split(','))),
    z
      .array(z.string())
      .max(20)
      .superRefine((types, context) => {
        const unknown = types.filter((t) => !knownTypes.has(t))
        if (unknown.length > 0)
          context.addIssue({
            code: 'custom',
            message: `${unknown.join(', ')} is not a message type; types are ${webhookMessageTypes.join(', ')}`,
          })
      }),
  )
  .optional()
  .describe('Only these message types: repeated or comma-separated')
const filters = {
  type: typeList,
  created_at: timeFilter.optional().describe('created_at[gte] / [lt] (and gt, lte): Unix seconds or ISO 8601'),
  tracker_id: positiveId.optional().describe('Only the events of this tracker'),
  order_id: positiveId.optional().describe('Only the events of this order (its trackers’ and notifications’ too)'),
}
const listQuery = z.object({ ...filters, ...paginationQuery })
const eventId = z.string().regex(/^msg_\d{1,19}$/, 'must be an event id msg_<digits>')
const streamQuery = z.object({
  ...filters,
  last_event_id: eventId.optional().describe('Resume after this event (else the Last-Event-ID header, else now)'),
})

type Filters = { type?: string[]; created_at?: z.infer<typeof timeFilter>; tracker_id?: number; order_id?: number }

/** Index rows a list reads at most to fill one page: a page of an upsert-heavy log has few silent events. */
const MAX_ROUNDS = 5
/** What the live stream lets a slow client fall behind by before it closes the stream (the client resumes). */
const STREAM_BUFFER_BYTES = 1024 * 1024
const STREAM_POLL_MS = 250

/** Where a list's rows come from: the index by type and time, or an order's stream (`trackerId`: one tracker's rows). */
type Selection = { where: Condition[]; stream?: string; trackerId?: number }

/** A page of rows, newest first, paged as the read store pages. */
type RowPages = (cursor: { startingAfter?: number; endingBefore?: number; limit: number }) => Promise<{
  rows: EventIndexDoc[]
  hasMore: boolean
}>

export function eventReadRoutes(app: App, rt: Runtime) {
  /** The rows the filters select; undefined when the order or tracker asked for is not the account's. */
  const selectionOf = async (accountId: number, f: Filters): Promise<Selection | undefined> => {
    const where: Condition[] = [...timeConditions('created_at', f.created_at)]
    if (f.type?.length) where.push({ field: 'type', op: 'in', values: [...new Set(f.type)] })
    if (f.order_id) {
      const order = await rt.readStore.get<OrderDoc>(ORDERS, accountId, f.order_id)
      if (!order) return undefined
      return { where, stream: order.key, trackerId: f.tracker_id }
    }
    if (f.tracker_id) {
      const tracker = await rt.readStore.get(TRACKERS, accountId, f.tracker_id)
      if (!tracker) return undefined
      return { where, stream: orderDocumentKeyOf(tracker.key), trackerId: f.tracker_id }
    }
    return { where }
  }

  /**
   * The selection's pages. An order's (or a tracker's) rows are read from
   * the order's stream in the log, judged as the public events projection
   * judges a batch (publicEventsOf), and paged in memory: no index of their own.
   */
  const pagesOf = async (accountId: number, selection: Selection | undefined): Promise<RowPages> => {
    if (!selection) return async () => ({ rows: [], hasMore: false })
    const { where, stream, trackerId } = selection
    if (stream === undefined)
      return async (cursor) => {
        const page = await rt.readStore.find<EventIndexDoc>(EVENTS, { accountId, where, ...cursor })
        return { rows: page.docs.map((d) => d.doc), hasMore: page.hasMore }
      }
    const rows = publicEventsOf(await rt.eventStore.readStream(stream)).filter(
      (row) => (trackerId === undefined || row.tracker_id === trackerId) && meetsConditions(row, where),
    )
    return async (cursor) => {
      const page = pageOf(rows, cursor)
      return { rows: page.data, hasMore: page.has_more }
    }
  }

  /** The rows' messages, in the rows' order; a row its command made silent gives none. */
  const rendered = async (rows: readonly EventIndexDoc[]) => {
    const messages = await messagesAt(
      rt.eventStore,
      rows.map((r) => ({ stream: r.stream, position: BigInt(r.id) })),
    )
    return rows.flatMap((r) => {
      const message = messages.get(BigInt(r.id))
      return message ? [{ id: webhookIdOf(String(r.id)), object: 'event' as const, ...JSON.parse(message.body) }] : []
    })
  }

  app.get(
    '/v2/events',
    {
      schema: {
        querystring: listQuery,
        response: { 200: eventList },
        summary:
          "The account's events, newest first: each the message a webhook carries, with the same id as its webhook-id",
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      const q = request.query
      const pages = await pagesOf(account.id, await selectionOf(account.id, q))
      const data: unknown[] = []
      let startingAfter = q.starting_after
      let endingBefore = q.ending_before
      let hasMore = false
      for (let round = 0; round < MAX_ROUNDS && data.length < q.limit; round++) {
        const { rows, hasMore: more } = await pages({ startingAfter, endingBefore, limit: q.limit - data.length })
        data.push(...(await rendered(rows)))
        hasMore = more
        if (!more || rows.length === 0) break
        // Further the same way: older for a newest-first walk, newer for one going back up.
        if (startingAfter !== undefined && endingBefore === undefined) startingAfter = rows[0]!.id
        else endingBefore = rows.at(-1)!.id
      }
      return listEnvelope(data, hasMore)
    },
  )

  app.get(
    '/v2/events/:id',
    {
      schema: {
        params: z.object({ id: eventId }),
        response: { 200: publicEvent },
        summary: 'One event: the message a webhook carries, by its id (msg_<position>)',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      const position = Number(request.params.id.slice(4))
      const row =
        Number.isSafeInteger(position) && (await rt.readStore.get<EventIndexDoc>(EVENTS, account.id, position))
      const [event] = row ? await rendered([row.doc]) : []
      if (!event) throw notFound('Event not found')
      return event
    },
  )

  eventStreamRoute(app, rt, selectionOf, pagesOf, rendered)
}

/**
 * GET /v2/events/stream: Server-Sent Events, each an event's message as
 * `id:`, `event:` (its type) and `data:`, from after `Last-Event-ID` (or
 * now); a heartbeat comment keeps it open. A client that falls behind by
 * more than a buffer is closed, and resumes from its last id.
 */
function eventStreamRoute(
  app: App,
  rt: Runtime,
  selectionOf: (accountId: number, f: Filters) => Promise<Selection | undefined>,
  /** The selection's pages, read afresh at each call: new events arrive between polls. */
  pagesOf: (accountId: number, selection: Selection | undefined) => Promise<RowPages>,
  rendered: (rows: readonly EventIndexDoc[]) => Promise<{ id: string; type: string }[]>,
) {
  const open = new Map<number, Set<ServerResponse>>()
  // Open streams end when the service stops, so it does not wait for clients to leave.
  app.addHook('preClose', async () => {
    for (const streams of open.values()) for (const raw of streams) raw.end()
  })

  app.get(
    '/v2/events/stream',
    {
      schema: {
        querystring: streamQuery,
        response: {
          200: z
            .string()
            .meta({ description: 'text/event-stream: `id:` msg_<position>, `event:` the type, `data:` the message' }),
        },
        summary: "Follow the account's events live (Server-Sent Events), resuming after Last-Event-ID",
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const q = request.query
      const header = request.headers['last-event-id']
      const resumeFrom = q.last_event_id ?? (typeof header === 'string' && header !== '' ? header : undefined)
      if (resumeFrom !== undefined && !eventId.safeParse(resumeFrom).success) {
        throw new ShiplogError('SHIPLOG_ERR_VALIDATION', 'Last-Event-ID: must be an event id msg_<digits>', {
          'last-event-id': 'must be an event id msg_<digits>',
        })
      }
      const streams = open.get(account.id) ?? new Set()
      if (streams.size >= rt.config.SHIPLOG_EVENT_STREAMS_MAX) {
        throw new ShiplogError(
          'SHIPLOG_ERR_RATE_LIMITED',
          `An account may follow at most ${rt.config.SHIPLOG_EVENT_STREAMS_MAX} event streams at once; close one first`,
        )
      }
      const selection = await selectionOf(account.id, q)
      let after =
        resumeFrom !== undefined
          ? Number(resumeFrom.slice(4))
          : ((await rt.readStore.find<EventIndexDoc>(EVENTS, { accountId: account.id, where: [], limit: 1 })).docs[0]
              ?.doc.id ?? 0)

      reply.hijack()
      const raw = reply.raw
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      })
      streams.add(raw)
      open.set(account.id, streams)
      let closed = false
      const close = () => {
        if (closed) return
        closed = true
        clearInterval(heartbeat)
        streams.delete(raw)
        if (streams.size === 0) open.delete(account.id)
        raw.end()
      }
      raw.on('close', close)
      /** False once the client is too far behind: the stream is closed, and it resumes from its last id. */
      const send = (text: string) => {
        if (closed) return false
        raw.write(text)
        if (raw.writableLength > STREAM_BUFFER_BYTES) {
          request.log.info({ account: account.id }, 'event stream closed: the client fell behind')
          close()
          return false
        }
        return true
      }
      const heartbeat = setInterval(() => send(': heartbeat\n\n'), rt.config.SHIPLOG_EVENT_STREAM_HEARTBEAT * 1000)
      send('retry: 2000\n\n')

      while (!closed) {
        try {
          const page = await (await pagesOf(account.id, selection))({ startingAfter: after, limit: 100 })
          const rows = page.rows.sort((a, b) => a.id - b.id)
          const messages = new Map((await rendered(rows)).map((m) => [m.id, m]))
          for (const row of rows) {
            const message = messages.get(webhookIdOf(String(row.id)))
            if (message && !send(`id: ${message.id}\nevent: ${message.type}\ndata: ${JSON.stringify(message)}\n\n`))
              break
            after = row.id
          }
          if (rows.length < 100) await new Promise((resolve) => setTimeout(resolve, STREAM_POLL_MS))
        } catch (error) {
          request.log.warn({ err: error }, 'event stream read failed; the client resumes from its last id')
          close()
        }
      }
    },
  )
}
