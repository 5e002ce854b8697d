import type { FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { trackingLinkResource, trackingPageSettingsResource } from '../../projectors/resources/schemas.ts'
import { notFound, ShiplogError } from '../../shared/domain/errors.ts'
import {
  type NotificationLanguage,
  notificationLanguageOf,
  notificationLanguages,
} from '../../shared/domain/notifications/languages.ts'
import { FIRST_TRACKING_LINK } from '../../shared/domain/orders/tracking-link-rotation.ts'
import { trackingPageOf } from '../../shared/domain/tracking-page/settings.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { type AttemptLimits, clientOf } from '../../shared/infra/attempt-limits.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import { publicUrlOf } from '../../shared/infra/http/public-url.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { StoredDocument } from '../../shared/infra/read-store/port.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { trackingLinkOf, type TrackingTokens, trackingTokens } from '../../shared/infra/tracking-tokens.ts'
import { renderLookupPage, renderNotFoundPage, renderTrackingPage, stylesheet } from './html.ts'
import { sendAsset, sendPage } from '../../shared/infra/http/html-page.ts'
import { trackingPageData } from './page.ts'
import { trackingPageDataOf } from './preview.ts'

/*
 * The customer's tracking page (no key: the token is the key), its JSON
 * twin, the lookup form, and the merchant's routes that read the page's
 * settings and an order's link. Pages are rendered from the read models.
 */

const ORDERS = collections.orders.name
const PUBLIC = { auth: 'none' } as const
/** Lookups one client (an address, an IPv6 /64) may make a minute: enough for a customer's typing mistakes, not for guessing. */
const LOOKUPS_PER_MINUTE = 10
/** Misses on one order number an hour, from any address: a guess spread over many addresses is still stopped. */
const MISSES_PER_ORDER_NUMBER_PER_HOUR = 20

const pageQuery = z.object({ lang: z.string().max(20).optional() })
const lookupQuery = pageQuery.extend({
  account: z.coerce.number().int().positive().optional(),
  order_number: z.string().trim().max(255).optional(),
  contact: z.string().trim().max(255).optional(),
})

/** The language asked for (`?lang=`), else the order's, else the account's, else the browser's first one shiplog has. */
export function pageLanguage(asked: string | undefined, ...candidates: (string | null | undefined)[]) {
  const code = [asked, ...candidates].find((c): c is string => Boolean(c) && writtenIn(c!))
  return code ? notificationLanguageOf(code.toLowerCase()) : 'en'
}

/** The languages of an Accept-Language header, by preference. */
const acceptedLanguages = (header: string | undefined): string[] =>
  (header ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';')
      const q = params.find((p) => p.trim().startsWith('q='))
      return { tag: tag!.trim(), q: q ? Number(q.trim().slice(2)) : 1 }
    })
    .filter((l) => l.tag && l.tag !== '*' && l.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((l) => l.tag)

const writtenIn = (tag: string) =>
  (notificationLanguages as readonly string[]).includes(tag.split('-')[0]!.toLowerCase())
const browserLanguage = (request: FastifyRequest) =>
  acceptedLanguages(request.headers['accept-language']).find(writtenIn)

/** The customer's pages (the token is the key), the lookup form, and the merchant's routes of the page. */
export function trackingPageReadRoutes(app: App, rt: Runtime, limits: AttemptLimits) {
  const tokens = trackingTokens(rt.secrets)
  customerPageRoutes(app, rt, tokens)
  lookupRoutes(app, rt, tokens, limits)
  merchantPageRoutes(app, rt, tokens)
}

/** An order's page and its JSON twin, and the page's style sheet. */
function customerPageRoutes(app: App, rt: Runtime, tokens: TrackingTokens) {
  /** The order a token names, as long as it is the order's current link and its account is there. */
  const pageOf = async (token: string) => {
    const target = tokens.open(token)
    if (!target) return undefined
    const [order, account] = await Promise.all([
      rt.readStore.get<OrderDoc>(ORDERS, target.accountId, target.orderId),
      rt.readStore.get<AccountDoc>(collections.accounts.name, target.accountId, target.accountId),
    ])
    if (!order || !account || account.doc.deleted) return undefined
    if ((order.doc.tracking_link_id ?? FIRST_TRACKING_LINK) !== target.linkId) return undefined
    return { order: order.doc, account: account.doc }
  }

  const dataOf = (order: OrderDoc, account: AccountDoc, language: NotificationLanguage) =>
    trackingPageDataOf(rt, order, account, language)

  app.get('/track/assets/tracking-page.css', { config: PUBLIC, schema: { hide: true } }, async (request, reply) =>
    sendAsset(reply, request.headers['if-none-match'], { ...stylesheet, contentType: 'text/css; charset=utf-8' }),
  )

  app.get(
    '/track/:token',
    { config: PUBLIC, schema: { params: z.object({ token: z.string() }), querystring: pageQuery } },
    async (request, reply) => {
      const found = await pageOf(request.params.token)
      const path = `/track/${encodeURIComponent(request.params.token)}`
      if (!found) {
        const language = pageLanguage(request.query.lang, browserLanguage(request))
        return sendPage(reply, 404, renderNotFoundPage(language, path))
      }
      const { order, account } = found
      const language = pageLanguage(
        request.query.lang,
        order.language_code,
        account.language_code,
        browserLanguage(request),
      )
      const data = await dataOf(order, account, language)
      return sendPage(reply, 200, renderTrackingPage(data, trackingPageOf(account), path))
    },
  )

  app.get(
    '/track/:token.json',
    {
      config: PUBLIC,
      schema: {
        params: z.object({ token: z.string() }),
        querystring: pageQuery,
        response: { 200: trackingPageData },
        summary: 'What an order’s tracking page shows, as JSON (the token is the key)',
      },
    },
    async (request, reply) => {
      const found = await pageOf(request.params.token)
      if (!found) throw notFound('No tracking page has this token')
      const { order, account } = found
      const language = pageLanguage(request.query.lang, order.language_code, account.language_code)
      return reply.header('cache-control', 'private, no-cache').send(await dataOf(order, account, language))
    },
  )
}

/** The lookup form and its answer: to the order's page when the number and the e-mail or postcode match. */
function lookupRoutes(app: App, rt: Runtime, tokens: TrackingTokens, limits: AttemptLimits) {
  const tooMany = (reply: FastifyReply, retryAfter: number, message: string) => {
    reply.header('retry-after', String(retryAfter))
    return new ShiplogError('SHIPLOG_ERR_RATE_LIMITED', message)
  }

  app.get(
    '/track',
    {
      config: PUBLIC,
      schema: { querystring: pageQuery.extend({ account: z.coerce.number().int().positive().optional() }) },
    },
    async (request, reply) => {
      const { account: accountId, lang } = request.query
      const chrome = await lookupChrome(accountId, lang, request, request.url.split('?')[0]!)
      const form = { account: accountId, orderNumber: '', contact: '', notFound: false }
      return sendPage(reply, 200, renderLookupPage(chrome, form))
    },
  )

  app.get(
    '/track/lookup',
    {
      config: PUBLIC,
      schema: { querystring: lookupQuery },
    },
    async (request, reply) => {
      const client = await limits.add(`lookup-client:${clientOf(request.ip)}`, 60)
      if (client.count > LOOKUPS_PER_MINUTE)
        throw tooMany(reply, client.retryAfter, 'Too many lookups from this address; retry in a minute')
      const { account: accountId, order_number = '', contact = '', lang } = request.query
      const asked = order_number && contact
      // Misses are counted per order number within the shop the link names, else across shops.
      const missKey = `lookup-misses:${accountId ?? '*'}:${order_number}`
      if (asked) {
        const misses = await limits.peek(missKey, 3600)
        if (misses.count >= MISSES_PER_ORDER_NUMBER_PER_HOUR)
          throw tooMany(reply, misses.retryAfter, 'Too many failed lookups of this order number; retry later')
      }
      const found = asked ? await lookUp(accountId, order_number, contact) : undefined
      if (found) {
        const token = tokens.tokenOf({
          accountId: found.accountId,
          orderId: found.id,
          linkId: found.doc.tracking_link_id ?? FIRST_TRACKING_LINK,
        })
        const language = lang ? `?lang=${encodeURIComponent(pageLanguage(lang))}` : ''
        return reply.status(303).header('location', `/track/${token}${language}`).send()
      }
      if (asked) await limits.add(missKey, 3600)
      const chrome = await lookupChrome(accountId, lang, request, '/track')
      const form = { account: accountId, orderNumber: order_number, contact, notFound: true }
      return sendPage(reply, asked ? 404 : 400, renderLookupPage(chrome, form))
    },
  )

  /** The lookup page's language and brand: the shop's, when the link names it. */
  const lookupChrome = async (
    accountId: number | undefined,
    lang: string | undefined,
    request: FastifyRequest,
    path: string,
  ) => {
    const account = accountId
      ? (await rt.readStore.get<AccountDoc>(collections.accounts.name, accountId, accountId))?.doc
      : undefined
    const shown = account && !account.deleted ? account : undefined
    const settings = shown ? trackingPageOf(shown) : trackingPageOf({})
    return {
      language: pageLanguage(lang, shown?.language_code, browserLanguage(request)),
      settings,
      brandName: shown ? (settings.brand_name ?? shown.name) : null,
      path: accountId ? `${path}?account=${accountId}` : path,
    }
  }

  /**
   * The order with this number whose e-mail or delivery postcode is the one
   * given, in the shop's account when the link names it, else in any. Which
   * half was wrong is never told.
   */
  const lookUp = async (accountId: number | undefined, orderNumber: string, contact: string) => {
    let candidates: StoredDocument<OrderDoc>[]
    if (accountId) {
      const keys = await rt.readStore.keysByField(ORDERS, accountId, 'order_number', [orderNumber])
      candidates = [...(await rt.readStore.getManyByKey<OrderDoc>(ORDERS, keys.get(orderNumber) ?? [])).values()]
    } else candidates = await rt.readStore.lookupAll<OrderDoc>(ORDERS, 'order_number', orderNumber, 20)
    return candidates
      .filter((c) => matchesContact(c.doc, contact))
      .sort((a, b) => b.doc.created_at - a.doc.created_at)[0]
  }
}

/** The merchant's routes: the page's settings, and an order's link. */
function merchantPageRoutes(app: App, rt: Runtime, tokens: TrackingTokens) {
  app.get(
    '/v2/tracking_page',
    {
      schema: {
        response: { 200: trackingPageSettingsResource },
        summary: 'The tracking page’s settings: brand, support contacts, custom CSS, contact details shown',
      },
    },
    async (request) => ({ object: 'tracking_page' as const, ...trackingPageOf(callerOf(request).account) }),
  )

  app.get(
    '/v2/orders/:id/tracking_link',
    {
      schema: {
        params: z.object({ id: z.coerce.number().int().positive() }),
        response: { 200: trackingLinkResource },
        summary: 'The address of the order’s tracking page, to link from your own pages',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [ORDERS])
      const order = await rt.readStore.get<OrderDoc>(ORDERS, account.id, request.params.id)
      if (!order) throw notFound('Order not found')
      return trackingLinkOf(tokens, publicUrlOf(rt, request), {
        accountId: account.id,
        orderId: order.id,
        linkId: order.doc.tracking_link_id ?? FIRST_TRACKING_LINK,
      })
    },
  )
}

const postcodeKey = (postcode: string) => postcode.replace(/[\s-]/g, '').toUpperCase()

/** An e-mail address matches the order's (case aside); anything else is a postcode of its delivery addresses. */
function matchesContact(order: OrderDoc, contact: string): boolean {
  if (contact.includes('@')) return order.email !== null && order.email.toLowerCase() === contact.toLowerCase()
  const wanted = postcodeKey(contact)
  const zips = [order.shipping_address?.zip, ...order.fulfillments.map((f) => f.shipping_address?.zip)]
  return wanted !== '' && zips.some((zip) => zip && postcodeKey(zip) === wanted)
}
