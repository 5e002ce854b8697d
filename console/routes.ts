import fastifyCookie from '@fastify/cookie'
import fastifyCsrf from '@fastify/csrf-protection'
import fastifyFormbody from '@fastify/formbody'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isShiplogError } from '../shared/domain/errors.ts'
import type { UserState } from '../shared/domain/users/user.ts'
import { userStream } from '../shared/domain/users/user.ts'
import type { AccountDoc } from '../shared/infra/accounts/account-doc.ts'
import { timeZoneOf } from '../projectors/accounts/account.ts'
import { type AttemptLimits, clientOf } from '../shared/infra/attempt-limits.ts'
import { sendAsset, sendPage } from '../shared/infra/http/html-page.ts'
import type { App } from '../shared/infra/http/server.ts'
import { verifyPassword } from '../shared/infra/passwords.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { signOutUser } from '../commands/users/change-user.ts'
import { assets, type Frame, renderConsolePage } from './html.ts'
import { analyticsPages } from './analytics.ts'
import { type ConsoleParts, type ConsoleRequest, consoleScope } from './frame.ts'
import { settingsPages } from './settings.ts'
import { webhookPages } from './webhooks.ts'
import { connectionPages } from './connections.ts'
import { consolePages } from './pages.ts'
import { clearSession, setSession, signedInUser } from './session.ts'

/*
 * The merchant console at /console: pages for people, rendered from the read
 * models; what they change goes through the same commands as the API. Its
 * own cookies (the session, CSRF's secret) and form bodies are parsed in its
 * scope only: the API never reads a cookie.
 */

const PUBLIC = { auth: 'none' } as const
/** Failed sign-ins an address, or an e-mail, may have a minute before it must wait. */
const SIGN_INS_PER_MINUTE = 10

/** Where to go after signing in: a console page only, never another site. */
const safeNext = (next: unknown) =>
  typeof next === 'string' && /^\/console(\/[\w\-./?=&%]*)?$/.test(next) && !next.startsWith('//') ? next : '/console'

export function consoleRoutes(app: App, rt: Runtime, limits: AttemptLimits, parts: ConsoleParts) {
  app.register(async (scope) => {
    await scope.register(fastifyCookie, { secret: rt.secrets.derive('console cookies') })
    await scope.register(fastifyFormbody)
    await scope.register(fastifyCsrf, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: 'shiplog_console_csrf',
      cookieOpts: { signed: true, httpOnly: true, sameSite: 'strict', path: '/console', secure: 'auto' },
      getToken: (request) => (request.body as { _csrf?: string } | undefined)?._csrf,
    })
    scope.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
      const csrf = error.code?.startsWith('FST_CSRF')
      const status = csrf ? 403 : isShiplogError(error) ? (error.status ?? 500) : (error.statusCode ?? 500)
      if (status >= 500) request.log.error({ err: error }, 'console page failed')
      const message = csrf
        ? 'This form expired or did not come from the console: nothing was changed. Go back, reload the page and try again.'
        : status === 404
          ? 'There is nothing here, or it belongs to another account.'
          : status < 500
            ? error.message
            : `Something failed on our side (request ${request.id}). Try again in a moment.`
      const heading = csrf ? 'Refused' : status === 404 ? 'Not found' : status < 500 ? 'Refused' : 'Something failed'
      return sendPage(reply, status, renderConsolePage('error', heading, {}, { heading, message }))
    })
    scope.get('/console/assets/:name', { config: PUBLIC, schema: { hide: true } }, async (request, reply) => {
      const asset = assets[(request.params as { name: string }).name as keyof typeof assets]
      if (!asset) return reply.status(404).send()
      return sendAsset(reply, request.headers['if-none-match'], asset)
    })
    signInRoutes(scope, rt, limits)
    const routes = consoleScope(scope, rt, signedIn(rt))
    consolePages(routes, rt, parts)
    analyticsPages(routes, rt)
    settingsPages(routes, rt, parts.carriers)
    webhookPages(routes, rt, parts)
    connectionPages(routes, rt, parts.jobs)
  })
}

/** The signed-in user and their account, or a redirect to the sign-in page (and back here after). */
function signedIn(rt: Runtime) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<ConsoleRequest | undefined> => {
    const user = await signedInUser(rt, request, reply)
    const account =
      user && (await rt.readStore.get<AccountDoc>(collections.accounts.name, user.account_id, user.account_id))
    if (!user || !account || account.doc.deleted) {
      clearSession(reply)
      reply.redirect(`/console/login?next=${encodeURIComponent(request.url)}`, 303)
      return undefined
    }
    const frame: Frame = {
      user: { email: user.email, role: user.role },
      csrf: reply.generateCsrf(),
      q: (request.query as { q?: string }).q,
      zone: timeZoneOf(account.doc),
    }
    return { user, account: account.doc, frame }
  }
}

function signInRoutes(scope: FastifyInstance, rt: Runtime, limits: AttemptLimits) {
  const loginPage = (reply: FastifyReply, status: number, form: { email?: string; next?: string; error?: string }) =>
    sendPage(
      reply,
      status,
      renderConsolePage('login', 'Sign in', {}, { ...form, next: safeNext(form.next), csrf: reply.generateCsrf() }),
    )

  scope.get('/console/login', { config: PUBLIC, schema: { hide: true } }, async (request, reply) => {
    const next = (request.query as { next?: string }).next
    if (await signedInUser(rt, request, reply)) return reply.redirect(safeNext(next), 303)
    return loginPage(reply, 200, { next })
  })

  scope.post(
    '/console/login',
    { config: PUBLIC, schema: { hide: true }, preHandler: scope.csrfProtection },
    async (request, reply) => {
      const body = (request.body ?? {}) as { email?: unknown; password?: unknown; next?: unknown }
      const email = typeof body.email === 'string' ? body.email.trim().toLowerCase().slice(0, 320) : ''
      const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : ''
      const next = typeof body.next === 'string' ? body.next : undefined
      const keys = [`console-email:${email}`, `console-client:${clientOf(request.ip)}`]
      // Counted before the hash, so a guesser past the limit costs no work at all.
      const windows = await Promise.all(keys.map((key) => limits.peek(key, 60)))
      const blocked = windows.find((w) => w.count >= SIGN_INS_PER_MINUTE)
      if (blocked) {
        reply.header('retry-after', String(blocked.retryAfter))
        return loginPage(reply, 429, {
          email,
          next,
          error: `Too many failed sign-ins. Try again in ${blocked.retryAfter} seconds.`,
        })
      }
      const stored = email
        ? await rt.readStore.getByKey<UserState>(collections.users.name, userStream(email))
        : undefined
      const user = stored && !stored.doc.deleted ? stored.doc : undefined
      if (!(await verifyPassword(password, user?.password_hash)) || !user) {
        await Promise.all(keys.map((key) => limits.add(key, 60)))
        return loginPage(reply, 401, { email, next, error: 'Wrong e-mail or password.' })
      }
      const now = rt.clock.nowMs()
      setSession(rt, request, reply, { email: user.email, began: now, seen: now })
      request.log.info({ user: user.user_id, account: user.account_id }, 'console sign-in')
      return reply.redirect(safeNext(next), 303)
    },
  )

  scope.post(
    '/console/logout',
    { config: PUBLIC, schema: { hide: true }, preHandler: scope.csrfProtection },
    async (request, reply) => {
      const user = await signedInUser(rt, request, reply)
      if (user) await signOutUser(rt, user.email, { source: 'console', correlationId: request.id })
      clearSession(reply)
      return reply.redirect('/console/login', 303)
    },
  )
}
