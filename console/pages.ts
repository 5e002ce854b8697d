import type { FastifyReply, FastifyRequest } from 'fastify'
import { Readable } from 'node:stream'
import { decideOnStream, executeCommand, untilVisible } from '../commands/execute.ts'
import { planTrackingLinkRotation } from '../commands/orders/rotate-tracking-link.ts'
import { carrierRegistry } from '../shared/domain/carriers/registry.ts'
import { notFound, validationError } from '../shared/domain/errors.ts'
import type { OrderEvent } from '../shared/domain/events/index.ts'
import { type DelayOutcome, delayOutcomes, delayReasons, delayStatuses } from '../shared/domain/events/order-events.ts'
import { decideDelayHandled, decideDelayReopened, type HandleDelay } from '../shared/domain/orders/delays.ts'
import { deliveryAddressOf, findNotification, type OrderDoc } from '../shared/domain/orders/document.ts'
import { decideNotificationResent } from '../shared/domain/orders/resend.ts'
import { reachableChannels } from '../shared/domain/notifications/build.ts'
import { type NotificationChannel, notificationChannels } from '../shared/domain/vocabulary/channels.ts'
import { finalStatuses } from '../shared/domain/orders/polling.ts'
import { type NotificationSlug, notificationTypeOf } from '../shared/domain/notifications/types.ts'
import { foldOrderState, type OrderState, orderStream } from '../shared/domain/orders/state.ts'
import { deliveryStatusCodes, type EventTypeCode, statusOfEvent } from '../shared/domain/vocabulary/tracking-codes.ts'
import { toUnixSeconds, utcDayOf } from '../shared/domain/time.ts'
import { localDayOf, localMidnight } from '../shared/domain/delivery/calendar.ts'
import { sendPage } from '../shared/infra/http/html-page.ts'
import { publicUrlOf } from '../shared/infra/http/public-url.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { smsSettings } from '../shared/infra/config.ts'
import { trackingPageUrlOf, trackingTokens } from '../shared/infra/tracking-tokens.ts'
import { emailPreview } from '../reactions/emails/preview.ts'
import type { WebhookDeliveryDoc } from '../projectors/webhooks/delivery.ts'
import { orderDocumentKeyOf, parcelsOf, type TrackerIndexDoc } from '../projectors/orders/tracker-index.ts'
import {
  daysAgo,
  byChannel,
  delayWords,
  expectedSource,
  outcomeWords,
  reasonNames,
  renderConsolePage,
  sendingWords,
  shortTime,
  statusWords,
  whyFlagged,
} from './html.ts'
import { problemsOf } from './health.ts'
import { queueRefresh, refreshOf } from '../reactions/polls/refresh.ts'
import { performanceBetween } from '../projectors/deliveries/performance.ts'
import { timelineOf } from './timeline.ts'
import { configuredServices } from '../projectors/carrier-services/configured.ts'
import { learnedHistory } from '../projectors/deliveries/learned.ts'
import { estimateParcel } from '../shared/domain/delivery/estimate.ts'
import { learnedFor } from '../shared/domain/delivery/history.ts'
import { delayRulesOf, timeZoneOf } from '../projectors/accounts/account.ts'
import {
  customerOf,
  delayedParcels,
  delayFiltersOf,
  keptBy,
  newestEventOf,
  everyParcel,
  filtersOf,
  parcelViews,
  viewCounts,
  findParcels,
  type Parcel,
  parcelsCsv,
  queryOf,
  rowOf,
  placeOf,
  wordsOf,
} from './parcels.ts'
import { type ConsoleParts, type ConsoleRequest, type ConsoleScope, commandOf, type Query } from './frame.ts'
import { allOf, doneAt, formOf } from './forms.ts'

const ORDERS = collections.orders.name
const TRACKERS = collections.trackers.name

/** The outcomes a delay can be marked handled with, as a form offers them. */
const outcomeOptions = delayOutcomes.map((value) => ({ value, label: outcomeWords[value] }))

const idOf = (value: unknown) => {
  const id = Number(value)
  if (!Number.isSafeInteger(id) || id <= 0) throw notFound('Not found')
  return id
}

export function consolePages(routes: ConsoleScope, rt: Runtime, parts: ConsoleParts) {
  const { carriers, polls } = parts
  const now = () => toUnixSeconds(rt.clock.now())

  routes.get('/console', 'overview', async (c, request, reply) => {
    const accountId = c.account.id
    const count = (field: string, value: string) =>
      rt.readStore.count(TRACKERS, { accountId, where: [{ field, op: 'eq', value }] })
    const statuses = await Promise.all(
      deliveryStatusCodes.map(async (code) => ({ code, count: await count('delivery_status_code', code) })),
    )
    const delays = await Promise.all(
      delayStatuses.map(async (s) => ({ label: delayWords[s], count: await count('delay_status', s) })),
    )
    const zone = timeZoneOf(c.account)
    const midnight = localMidnight(zone, localDayOf(zone, now()))
    const orders = await rt.readStore.count(ORDERS, {
      accountId,
      where: [{ field: 'created_at', op: 'gte', value: midnight }],
    })
    const flagged = (await delayedParcels(rt, accountId, false)).filter(
      (p) => (p.tracker.delay?.since ?? 0) >= midnight,
    )
    const attention = statuses.filter((s) => ['exception', 'failed_attempt', 'available_for_pickup'].includes(s.code))
    const [[week], problems] = await Promise.all([
      performanceBetween(rt, accountId, { from: utcDayOf(now() - 6 * 86_400), to: utcDayOf(now()) }, []),
      problemsOf(rt, accountId, carriers, now(), (seconds) => shortTime(seconds, zone)),
    ])
    return sendPage(
      reply,
      200,
      renderConsolePage('overview', 'Overview', c.frame, {
        statuses,
        delays,
        attention,
        today: { orders, flagged: flagged.slice(0, 10) },
        week: week && {
          delivered: week.delivered,
          onTime: week.on_time_rate,
          transit: week.transit_business_days.p50,
        },
        problems,
        checkedAt: now(),
        setup: statuses.every((s) => s.count === 0) ? await setupOf(c, publicUrlOf(rt, request)) : undefined,
      }),
    )
  })

  routes.get('/console/parcels', 'parcels', async (c, request, reply) => {
    const filters = filtersOf(request.query as Query)
    const selected = tickedOf(request.query as Query)
    const [found, counts] = await Promise.all([
      findParcels(rt, c.account.id, filters),
      filters.q ? undefined : viewCounts(rt, c.account.id, filters),
    ])
    // An exact tracking or order number opens its order.
    if (filters.q && found.onlyOrder) return reply.redirect(`/console/orders/${found.onlyOrder.id}`, 303)
    const last = found.parcels.at(-1)
    return sendPage(
      reply,
      200,
      renderConsolePage('parcels', 'Parcels', c.frame, {
        filters,
        filtered: Boolean(filters.q || filters.status || filters.carrier || filters.delay),
        // Each tab keeps the other filters; a tab or filter change starts again at the newest.
        tabs: counts?.map((tab) => ({
          ...tab,
          href: `/console/parcels?${queryOf({ ...filters, view: tab.view })}`,
          current: tab.view === filters.view,
        })),
        viewLabel: parcelViews[filters.view].label,
        viewEmpty: parcelViews[filters.view].empty,
        /** Parcels elsewhere: an empty tab says so rather than "no parcels yet". */
        anyParcel: counts?.some((tab) => tab.view === 'all' && tab.any),
        parcels: found.parcels.map((p) => ({ ...rowOf(p, now()), selected: selected.has(p.tracker.id) })),
        exportUrl: `/console/parcels.csv?${queryOf(filters)}`,
        // The page itself, to come back to after a bulk action, its parcels still ticked.
        pageUrl: `/console/parcels?${queryOf(filters, { before: filters.before })}`,
        matching: counts?.find((tab) => tab.view === filters.view)?.count,
        now: now(),
        statusOptions: deliveryStatusCodes.map((code) => ({ code, selected: code === filters.status })),
        delayOptions: [...delayStatuses, 'any'].map((value) => ({
          value,
          label: value === 'any' ? 'Any delay' : delayWords[value as keyof typeof delayWords],
          selected: value === filters.delay,
        })),
        carriers: Object.keys(carrierRegistry).sort(),
        nextPage: found.hasMore && last ? `/console/parcels?${queryOf(filters, { before: last.tracker.id })}` : null,
        firstPage: `/console/parcels?${queryOf(filters)}`,
      }),
    )
  })

  /**
   * What a bulk action is done to: the parcels ticked, or every parcel of the
   * tab and filters the form carries (up to BULK_MAX), the newest first.
   */
  const bulkParcels = async (accountId: number, form: Record<string, unknown>) => {
    if (form.all === '1') {
      const parcels: Parcel[] = []
      for await (const page of everyParcel(rt, accountId, { ...filtersOf(form as Query), before: undefined })) {
        parcels.push(...page)
        if (parcels.length >= BULK_MAX) break
      }
      return parcels.slice(0, BULK_MAX)
    }
    const ids = allOf(form.tracker).map(Number).filter(Number.isSafeInteger).slice(0, BULK_MAX)
    const entries = await Promise.all(ids.map((id) => rt.readStore.get<TrackerIndexDoc>(TRACKERS, accountId, id)))
    return parcelsOf(
      rt.readStore,
      entries.filter((e) => e !== undefined),
    )
  }

  /** Most parcels one bulk action changes: a thousand carrier requests or appends, a few seconds' work. */
  const BULK_MAX = 1000

  // Bulk actions on the parcels list: refresh from carrier, mark delays handled, export; the selection stays.
  routes.post(
    '/console/parcels/bulk',
    async (c, request, reply) => {
      const form = formOf(request)
      const action = form.action
      if (action !== 'refresh' && action !== 'handled' && action !== 'export')
        throw validationError('action: must be refresh, handled or export', { action: 'not an action' })
      const parcels = await bulkParcels(c.account.id, form)
      if (parcels.length === 0)
        throw validationError('Tick a parcel, or every parcel matching the filters', { tracker: 'none ticked' })
      if (action === 'export') {
        const at = now()
        return sendParcelsCsv(
          reply,
          c,
          at,
          parcelsCsv(
            parcels.map((p) => rowOf(p, at)),
            true,
          ),
        )
      }
      const done = action === 'refresh' ? await refreshAll(c, parcels) : await handleAll(c, request, parcels)
      // Back to the page it came from, its parcels still ticked (all those matching are not listed one by one).
      const back = new URL(
        typeof form.back === 'string' && /^\/console\/(parcels|delays)(\?|$)/.test(form.back)
          ? form.back
          : '/console/parcels',
        'http://console.invalid',
      )
      if (form.all !== '1') back.searchParams.set('selected', parcels.map((p) => p.tracker.id).join(','))
      return reply.redirect(doneAt(`${back.pathname}${back.search}`, done), 303)
    },
    'member',
  )

  /** Asks each parcel's carrier for news; says how many were asked, and why the others were not. */
  const refreshAll = async (c: ConsoleRequest, parcels: readonly Parcel[]) => {
    let asked = 0
    const refused = new Map<string, number>()
    for (const { tracker } of parcels) {
      const refresh = await queueRefresh(rt, polls, c.account.id, tracker.id, now())
      if ('refused' in refresh) refused.set(refresh.refused.message, (refused.get(refresh.refused.message) ?? 0) + 1)
      else asked++
    }
    const not = [...refused].map(([why, n]) => `${n} not: ${why}`).join('; ')
    return `Asked the carriers about ${asked} parcel${asked === 1 ? '' : 's'}.${not ? ` ${not}.` : ''}`
  }

  /** Marks each parcel's open delay handled; says how many, and how many had none open. */
  const handleAll = async (c: ConsoleRequest, request: FastifyRequest, parcels: readonly Parcel[]) => {
    const open = parcels.filter(({ tracker }) => tracker.delay && !tracker.delay_handled)
    const decidedAt = performance.now()
    let last: bigint | undefined
    for (const { order, tracker } of open) {
      const command: HandleDelay = { tracker_id: tracker.id, by: c.user.email, at: now() }
      const position = await decideOnOrder(c, request, orderStream(c.account.id, order.order_number), (state) =>
        decideDelayHandled(command, state),
      )
      if (position !== undefined && (last === undefined || position > last)) last = position
    }
    if (last !== undefined) await untilVisible(rt, last, decidedAt)
    const none = parcels.length - open.length
    return `Marked ${open.length} delay${open.length === 1 ? '' : 's'} handled.${none ? ` ${none} of the parcels had none open.` : ''}`
  }

  // Every parcel the filters match, page after page, as the page lists them (a search's, as found).
  routes.get('/console/parcels.csv', 'parcels', async (c, request, reply) => {
    const filters = { ...filtersOf(request.query as Query), before: undefined }
    const at = now()
    async function* csv() {
      let header = true
      for await (const page of everyParcel(rt, c.account.id, filters)) {
        yield parcelsCsv(
          page.map((p) => rowOf(p, at)),
          header,
        )
        header = false
      }
    }
    return sendParcelsCsv(reply, c, at, Readable.from(csv()))
  })

  routes.get('/console/orders/:id', undefined, async (c, request, reply) => {
    const stored = await rt.readStore.get<OrderDoc>(ORDERS, c.account.id, idOf((request.params as Query).id))
    if (!stored) throw notFound('Order not found')
    const order = stored.doc
    const trackers = order.fulfillments.flatMap((f) => f.trackers)
    const deliveries = await rt.readStore.find<WebhookDeliveryDoc>(collections.webhook_deliveries.name, {
      accountId: c.account.id,
      where: [{ field: 'subject', op: 'eq', value: stored.key }],
      limit: 100,
    })
    const tally = new Map<string, number>()
    for (const t of trackers) tally.set(t.delivery_status_code, (tally.get(t.delivery_status_code) ?? 0) + 1)
    const summary = trackers.length
      ? `${trackers.length} parcel${trackers.length > 1 ? 's' : ''}: ${[...tally].map(([s, n]) => `${n} ${(statusWords[s] ?? s).toLowerCase()}`).join(', ')}`
      : 'Not shipped yet'
    const stallDays = delayRulesOf(c.account).stalled_after_business_days
    const entries = await Promise.all(
      trackers.map((t) => rt.readStore.get<TrackerIndexDoc>(TRACKERS, c.account.id, t.id)),
    )
    // What the configured services would promise each shipped parcel today, and from what.
    const services = await configuredServices(rt, c.account.id)
    const history = services.length > 0 ? await learnedHistory(rt, c.account.id, services) : undefined
    const expected = trackers.map((t) => {
      const kind = t.displayable_expected_delivery_kind
      if (!kind) return undefined
      const destination =
        order.fulfillments.find((f) => f.trackers.includes(t))?.shipping_address ?? order.shipping_address
      const estimate =
        kind === 'promise' && t.shipped_at !== null
          ? estimateParcel(
              {
                carrier_code: t.carrier?.code,
                service_code: t.carrier_service?.code,
                origin: originOf(t),
                destination: destination?.country_code ?? undefined,
                postcode: destination?.zip ?? undefined,
              },
              t.shipped_at,
              services,
              history && ((lane) => learnedFor(history, lane)),
            )
          : undefined
      return expectedSource(kind, estimate)
    })
    // Refresh from carrier, or why not: the API's reasons, in its words.
    const refreshes = trackers.map((t, i) => {
      const entry = entries[i]
      const refresh = entry ? refreshOf(entry, t, polls, now()) : undefined
      return { reason: refresh?.refused?.message }
    })
    // The last poll got no answer: what the page shows may be stale, and since when it is the carrier's.
    const staleness = trackers.map((t, i) => {
      const failed = entries[i]?.doc.poll?.failed
      if (!failed) return undefined
      return { carrier: t.carrier?.name ?? t.carrier?.code, ...failed, answered_at: entries[i]!.doc.poll!.answered_at }
    })
    /** A parcel's notifications; the first parcel's list holds the order's own (order placed) too. */
    const sentFor = (tracker: (typeof trackers)[number], i: number) => [
      ...tracker.notifications,
      ...(i === 0 ? order.notifications : []),
    ]
    // Resending: on the channels that reach the customer now (SMS only where a provider is set).
    const reachable = reachableChannels({ email: order.email, phone: order.phone, language_code: order.language_code })
    const channels = reachable
      .filter((channel) => channel === 'email' || smsSettings(rt.config))
      .map((channel) => ({
        value: channel,
        label: `${CHANNEL_LABELS[channel]} ${channel === 'email' ? order.email : order.phone}`,
      }))
    return sendPage(
      reply,
      200,
      renderConsolePage('order', `Order ${order.order_number}`, c.frame, {
        order,
        customer: customerOf(order),
        summary,
        now: now(),
        trackingLink: trackingPageUrlOf(rt, c.account.id, order),
        parcels: trackers.map((tracker, i) => ({
          number: i + 1,
          tracker,
          sentence: sentenceOf(tracker, now()),
          expected: expected[i],
          refresh: refreshes[i],
          stale: staleness[i],
          timeline: timelineOf(
            tracker.events.map((e) => ({
              happened_at: e.happened_at,
              moved: e.event_type_code ? statusWords[statusOfEvent[e.event_type_code as EventTypeCode]] : null,
              message: wordsOf(e),
              place: placeOf(e),
            })),
            now(),
            stallDays,
            finalStatuses.has(tracker.delivery_status_code),
          ),
          ...notificationsOf(sentFor(tracker, i)),
          resend: resendOf(sentFor(tracker, i), channels),
        })),
        items: order.line_items,
        address: addressLinesOf(deliveryAddressOf(order), customerOf(order).name),
        webhooks: deliveries.docs.map((d) => d.doc),
        outcomes: outcomeOptions,
        orderUrl: `/console/orders/${order.id}`,
      }),
    )
  })

  /** An empty account's first steps, each done or with where to do it. */
  const setupOf = async (c: ConsoleRequest, baseUrl: string) => {
    const endpoints = await rt.readStore.count(collections.webhook_endpoints.name, {
      accountId: c.account.id,
      where: [{ field: 'deleted', op: 'eq', value: 0 }],
    })
    return {
      baseUrl,
      carrierApi: carriers.settings.some((api) => api.adapter !== undefined),
      trackingPage: c.account.tracking_page !== undefined,
      webhooks: endpoints > 0,
    }
  }

  const tokens = trackingTokens(rt.secrets)
  routes.post(
    '/console/orders/:id/tracking_link/rotate',
    async (c, request, reply) => {
      const id = idOf((request.params as Query).id)
      const command = commandOf(c, request)
      const link = { tokens, baseUrl: publicUrlOf(rt, request) }
      const response = await executeCommand(rt, command, () => planTrackingLinkRotation(rt, command, id, link))
      if (response.status === 404) throw notFound('Order not found')
      return reply.redirect(doneAt(`/console/orders/${id}`, 'A new link was made: earlier links no longer work.'), 303)
    },
    'member',
  )

  routes.post(
    '/console/orders/:id/trackers/:tracker/refresh',
    async (c, request, reply) => {
      const params = request.params as Query
      const id = idOf(params.id)
      const refresh = await queueRefresh(rt, polls, c.account.id, idOf(params.tracker), now())
      if ('refused' in refresh) throw refresh.refused
      const carrier = refresh.tracker.carrier?.name ?? 'The carrier'
      return reply.redirect(
        doneAt(`/console/orders/${id}`, `Asked ${carrier} for news: this page shows it once it answers.`),
        303,
      )
    },
    'member',
  )

  routes.get('/console/delays', 'delays', async (c, request, reply) => {
    const query = request.query as Query
    const handled = query.handled === '1'
    const filters = delayFiltersOf(query)
    const selected = tickedOf(query)
    const parcels = (await delayedParcels(rt, c.account.id, handled)).filter((p) =>
      keptBy(filters, p, timeZoneOf(c.account)),
    )
    const stallDays = delayRulesOf(c.account).stalled_after_business_days
    return sendPage(
      reply,
      200,
      renderConsolePage('delays', 'Delays', c.frame, {
        handled,
        filters,
        filtered: Object.values(filters).some((v) => v !== undefined),
        reasons: delayReasons.map((value) => ({
          value,
          label: reasonNames[value],
          selected: value === filters.reason,
        })),
        carriers: Object.keys(carrierRegistry).sort(),
        now: now(),
        parcels: parcels.map((p) => ({
          ...rowOf(p, now()),
          told: toldOf(p),
          why: p.tracker.delay && whyFlagged(p.tracker.delay, stallDays),
          selected: selected.has(p.tracker.id),
        })),
        outcomes: outcomeOptions,
        // The list itself, under its filters, to come back to after marking the ticked ones handled.
        pageUrl: `/console/delays?${new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined))}`,
      }),
    )
  })

  /** A console user's change decided on an order's stream (its document's key); the position it was appended at, if any. */
  const decideOnOrder = (
    c: ConsoleRequest,
    request: FastifyRequest,
    stream: string,
    decide: (state: OrderState | undefined) => OrderEvent[],
  ) =>
    decideOnStream<OrderEvent>(
      rt,
      stream,
      (history) => decide(foldOrderState(history)),
      () => ({ accountId: c.account.id, correlationId: request.id, source: 'console', recordedAt: rt.clock.nowMs() }),
    )

  /**
   * A change to a tracker's delay from a form: decided on its order's stream,
   * visible before the page it returns to (the form's `back`, an order's
   * page, else the delays) shows it.
   */
  const changeDelay =
    (
      decide: (id: number, c: ConsoleRequest, form: Query) => (state: OrderState | undefined) => OrderEvent[],
      done: string,
    ) =>
    async (c: ConsoleRequest, request: FastifyRequest, reply: FastifyReply) => {
      const id = idOf((request.params as Query).id)
      const entry = await rt.readStore.get<TrackerIndexDoc>(TRACKERS, c.account.id, id)
      if (!entry) throw notFound('Parcel not found')
      const form = (request.body ?? {}) as Query
      const decision = decide(id, c, form)
      const decidedAt = performance.now()
      const position = await decideOnOrder(c, request, orderDocumentKeyOf(entry.key), decision)
      if (position !== undefined) await untilVisible(rt, position, decidedAt)
      const target = form.back?.startsWith('/console/orders/') ? form.back : '/console/delays'
      return reply.redirect(doneAt(target, done), 303)
    }

  routes.post(
    '/console/delays/:id/handled',
    changeDelay((id, c, form) => {
      const outcome = form.outcome || undefined
      if (outcome !== undefined && !(delayOutcomes as readonly string[]).includes(outcome))
        throw validationError(`outcome must be one of ${delayOutcomes.join(', ')}`, { outcome: 'not an outcome' })
      const command: HandleDelay = {
        tracker_id: id,
        by: c.user.email,
        at: now(),
        outcome: outcome as DelayOutcome | undefined,
        note: form.note,
      }
      return (state) => decideDelayHandled(command, state)
    }, 'Marked handled.'),
    'member',
  )

  // Undo: the delay is open again.
  routes.post(
    '/console/delays/:id/reopen',
    changeDelay(
      (id, c) => (state) => decideDelayReopened({ tracker_id: id, by: c.user.email, at: now() }, state),
      'Open again.',
    ),
    'member',
  )

  // Resend a notification: a new one of the same type, on the channel chosen, to the order's contacts as they are now.
  routes.post(
    '/console/orders/:id/notifications/resend',
    async (c, request, reply) => {
      const stored = await rt.readStore.get<OrderDoc>(ORDERS, c.account.id, idOf((request.params as Query).id))
      if (!stored) throw notFound('Order not found')
      const form = formOf(request)
      const sent = findNotification(stored.doc, Number(form.notification))
      if (!sent) throw validationError('notification: not one of this order’s', { notification: 'not this order’s' })
      const channel = form.channel
      if (!(notificationChannels as readonly unknown[]).includes(channel))
        throw validationError(`channel: must be one of ${notificationChannels.join(', ')}`, {
          channel: 'not a channel',
        })
      if (channel === 'sms' && !smsSettings(rt.config))
        throw validationError('channel: SMS needs a provider; set TWILIO_ACCOUNT_SID', { channel: 'no SMS provider' })
      const command = {
        tracker_id: sent.tracker?.id,
        slug: sent.notification.notification_type.slug as NotificationSlug,
        channel: channel as NotificationChannel,
        at: now(),
        ids: rt.ids,
      }
      const decidedAt = performance.now()
      const position = await decideOnOrder(c, request, stored.key, (state) => decideNotificationResent(command, state))
      if (position !== undefined) await untilVisible(rt, position, decidedAt)
      const to = channel === 'email' ? stored.doc.email : stored.doc.phone
      const name = notificationTypeOf(sent.notification.notification_type).name
      return reply.redirect(
        doneAt(
          `/console/orders/${stored.doc.id}`,
          `${name} is being sent again ${byChannel[command.channel]} to ${to}.`,
        ),
        303,
      )
    },
    'member',
  )

  routes.get('/console/notifications/:id/preview', undefined, async (c, request, reply) => {
    const { order, notification, email } = await emailPreview(rt, c.account, idOf((request.params as Query).id))
    return sendPage(
      reply,
      200,
      renderConsolePage('preview', email.subject, c.frame, {
        orderId: order.id,
        orderNumber: order.order_number,
        notificationId: notification.id,
        slug: notification.notification_type.slug,
        subject: email.subject,
        text: email.text,
      }),
    )
  })
}

/** A parcel's notifications in words, and the newest: what the customer was told last. */
function notificationsOf(sent: readonly OrderDoc['notifications'][number][]) {
  const notifications = sent.map((n) => ({
    id: n.id,
    created_at: n.created_at,
    name: notificationTypeOf(n.notification_type).name,
    sending: n.notification_payloads.map(sendingWords),
  }))
  const lastTold = notifications.reduce<(typeof notifications)[number] | undefined>(
    (newest, n) => (!newest || n.created_at > newest.created_at ? n : newest),
    undefined,
  )
  return { notifications, lastTold }
}

const CHANNEL_LABELS: Record<NotificationChannel, string> = { email: 'By e-mail to', sms: 'By SMS to' }

/** The country a parcel left from: its earliest scan that names a place, as the decider took it from its shipping scan. */
const originOf = (tracker: OrderDoc['fulfillments'][number]['trackers'][number]) =>
  tracker.events
    .filter((e) => e.address?.country_code)
    .reduce<(typeof tracker.events)[number] | undefined>(
      (earliest, e) => (!earliest || e.happened_at < earliest.happened_at ? e : earliest),
      undefined,
    )?.address?.country_code ?? undefined

/** Parcels as a CSV download, named by the account's day it was made. */
const sendParcelsCsv = (reply: FastifyReply, c: ConsoleRequest, at: number, body: string | Readable) =>
  reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="parcels-${localDayOf(timeZoneOf(c.account), at)}.csv"`)
    .send(body)

/** The parcels a bulk action left ticked, from the page's `selected` (their ids, comma-separated). */
const tickedOf = (query: Query) => new Set((query.selected ?? '').split(',').map(Number))

/** What a parcel's notifications can be sent again as: the newest of each type, on the channels given; none without either. */
function resendOf(
  sent: readonly OrderDoc['notifications'][number][],
  channels: readonly { value: NotificationChannel; label: string }[],
) {
  const newest = new Map<string, OrderDoc['notifications'][number]>()
  for (const n of sent) {
    const known = newest.get(n.notification_type.slug)
    if (!known || n.created_at >= known.created_at) newest.set(n.notification_type.slug, n)
  }
  if (newest.size === 0 || channels.length === 0) return undefined
  return {
    notifications: [...newest.values()].map((n) => ({ id: n.id, name: notificationTypeOf(n.notification_type).name })),
    channels,
  }
}

/** One sentence on where a parcel is: its status, carrier, and its last scan's age and place. */
function sentenceOf(tracker: OrderDoc['fulfillments'][number]['trackers'][number], now: number) {
  const status = statusWords[tracker.delivery_status_code] ?? tracker.delivery_status_code
  const carrier = tracker.carrier?.name ?? tracker.untracked_carrier_name
  const last = newestEventOf(tracker)
  const age = last ? `last scan ${daysAgo(last.happened_at, now)}` : 'no carrier scan yet'
  const place = last?.address?.city ? ` in ${last.address.city}` : ''
  return `${status}${carrier ? ` with ${carrier}` : ''}, ${age}${last ? place : ''}.`
}

/**
 * An address as the lines of a label: name (the customer's when the address
 * names nobody), company, street, town, country; none without an address.
 */
function addressLinesOf(address: ReturnType<typeof deliveryAddressOf>, customer: string | null) {
  if (!address) return []
  const name = address.name || [address.first_name, address.last_name].filter(Boolean).join(' ') || customer
  const town = [address.zip, address.city].filter(Boolean).join(' ')
  return [
    name,
    address.company_title,
    address.address1,
    address.address2,
    [town, address.state].filter(Boolean).join(', '),
    address.country ?? address.country_code,
  ].filter((line): line is string => Boolean(line))
}

/** What the customer was told of a parcel's delay: its `delayed` notification's e-mail or SMS, or nothing. */
function toldOf(p: Parcel) {
  const told = p.tracker.notifications.filter((n) => n.notification_type.slug === 'delayed').at(-1)
  if (!told) return 'Not told'
  const sent = told.notification_payloads.map(sendingWords)
  return sent.length ? sent.join(', ') : 'No address to write to'
}
