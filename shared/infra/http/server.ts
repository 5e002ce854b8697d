import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import underPressure from '@fastify/under-pressure'
import { getHeapStatistics } from 'node:v8'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { completeDocument, type OperationNotes } from './openapi.ts'
import { jsonSchemaTransform, jsonSchemaTransformObject, type ZodTypeProvider } from 'fastify-type-provider-zod'
import qs from 'qs'
import { refuseUnknownQueryParameters } from './query-parameters.ts'
import fastJson from 'fast-json-stringify'
import { z } from 'zod'
import type { Runtime } from '../runtime.ts'
import { notFound, ShiplogError } from '../../domain/errors.ts'
import { authenticate, keyAccounts } from './auth.ts'
import { handleError } from './error-handler.ts'
import { validatorCompiler } from './validator-compiler.ts'
import { jsonDepthExceeds, MAX_JSON_DEPTH, SMALL_BODY_LIMIT } from './body-limits.ts'

export type App = Awaited<ReturnType<typeof createHttpServer>>

/**
 * The HTTP edge every role shares: request ids, JSON logs, bracketed query
 * strings (`created_at[gt]=`, `expand[]=`), zod validation, authentication and
 * the one error handler. Roles register their routes as plugins on it.
 */
/** The service's version, as package.json (beside the sources, or in dist/) gives it. */
const serviceVersion = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version

export async function createHttpServer(
  rt: Pick<Runtime, 'config' | 'readStore' | 'logger'>,
  apiNotes: Record<string, OperationNotes> = {},
) {
  const app = Fastify({
    loggerInstance: rt.logger,
    // A route that takes more says so (its bodyLimit): batches take BODY_LIMIT.
    bodyLimit: Math.min(SMALL_BODY_LIMIT, rt.config.BODY_LIMIT),
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : `req_${randomUUID()}`
    },
    routerOptions: {
      querystringParser: (s: string) => qs.parse(s, { arrayLimit: 100, depth: 1, parameterLimit: 200 }),
      ignoreTrailingSlash: true,
    },
    // Behind a gateway, the client's address comes from X-Forwarded-For (rate limits are per client).
    trustProxy: rt.config.TRUST_PROXY,
    // `{app_url}/api/...` is the same API as `/...` (the document's second server).
    rewriteUrl: (req) => (req.url?.startsWith('/api/') ? req.url.slice(4) : (req.url ?? '/')),
  }).withTypeProvider<ZodTypeProvider>()

  // JSON only (multipart where a route registers it): anything else is a 415.
  app.removeContentTypeParser('text/plain')
  // fastify's own JSON parser (with its prototype-poisoning checks), behind a nesting check that needs no parse.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer
    // Clients send the JSON Content-Type on a POST without a body (a test message, a refresh): no body, not bad JSON.
    if (bytes.length === 0) {
      done(null, undefined)
      return
    }
    if (jsonDepthExceeds(bytes, MAX_JSON_DEPTH)) {
      done(new ShiplogError('SHIPLOG_ERR_VALIDATION', `Body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined)
      return
    }
    parseJson(request, bytes.toString('utf8'), done)
  })
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(({ schema }) => serializerOf(schema as z.ZodType))
  app.setErrorHandler(handleError)
  app.addHook('preValidation', refuseUnknownQueryParameters)
  await apiReference(app, apiNotes)
  app.get('/', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({
    service: 'shiplog',
    api_reference: '/docs',
    openapi: '/openapi.json',
  }))
  // Per verified key, else per client address (no key, or a key no account has), per process;
  // 429 with Retry-After past the limit. A fresh bogus key each time is counted against its
  // sender's address, and never makes a bucket of its own that could push out a real one.
  await app.register(rateLimit, {
    global: false,
    max: rt.config.RATE_LIMIT_PER_MINUTE,
    timeWindow: 60_000,
    keyGenerator: (request) => (request.caller ? `key:${request.caller.keyId}` : `ip:${request.ip}`),
    allowList: (request) => request.url === '/healthz' || request.url === '/readyz',
  })
  // As an onRequest hook of ours, so that it runs before authentication.
  const limit = app.rateLimit() as unknown as (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  // Shed load before the heap runs out: past LOAD_SHED_HEAP_PERCENT of V8's heap limit
  // a request is a 503 with Retry-After, never a crash; the health routes still answer.
  await app.register(underPressure, {
    maxHeapUsedBytes: Math.floor((getHeapStatistics().heap_size_limit * rt.config.LOAD_SHED_HEAP_PERCENT) / 100),
    retryAfter: 10,
    pressureHandler: (request, reply) => {
      if (request.url === '/healthz' || request.url === '/readyz') return
      reply.header('retry-after', '10')
      throw new ShiplogError('SHIPLOG_ERR_UNAVAILABLE', 'The service is under memory pressure; retry shortly')
    },
  })
  app.setNotFoundHandler((request, reply) =>
    handleError(notFound(`No route ${request.method} ${request.url.split('?')[0]}`), request, reply),
  )
  cutOffSlowClients(app, rt.config.REQUEST_TIMEOUT_MS)
  const accountOfKey = keyAccounts(rt.readStore)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    // The key is checked first (one indexed lookup), so the limit knows whose request it is;
    // a refusal is answered after the limit has counted it.
    let refused: unknown
    if (request.routeOptions.url) {
      try {
        request.caller = await authenticate(request, accountOfKey, request.routeOptions.config.auth ?? 'private')
      } catch (error) {
        refused = error
      }
    }
    await limit.call(app, request, reply)
    if (reply.sent) return
    if (refused) throw refused
  })
  return app
}

/**
 * An answer's serialiser, from its response schema: fast-json-stringify where
 * the schema has no union, JSON.stringify where it has one (an expandable
 * resource), each the faster there (bench/serialise.ts). Neither validates:
 * the renderers are typed by these schemas, and the tests check every answer.
 */
function serializerOf(schema: z.ZodType): (data: unknown) => string {
  const json = z.toJSONSchema(schema, { io: 'output', reused: 'inline', unrepresentable: 'any' })
  const hasUnion = JSON.stringify(json).includes('"anyOf"')
  return hasUnion ? JSON.stringify : fastJson(json as Parameters<typeof fastJson>[0])
}

/** The OpenAPI document, from the same zod schemas that validate the requests, and the reference page. */
async function apiReference(app: App, apiNotes: Record<string, OperationNotes>) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'shiplog',
        version: serviceVersion,
        description: 'Self-hostable shipment tracking: trackers, orders, jobs, pickup points, delivery date estimation',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: { securitySchemes: { key: { type: 'http', scheme: 'bearer' } } },
      security: [{ key: [] }],
    },
    transform: jsonSchemaTransform,
    // The resources registered with an id (`.meta({ id })`) become components, referenced where used.
    transformObject: (documentObject) => completeDocument(jsonSchemaTransformObject(documentObject), apiNotes),
  })
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger())
  // The API reference page, from the same document, served with its assets (no outside fetch).
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'none' }
    })
    await scope.register(swaggerUi, {
      routePrefix: '/docs',
      theme: { title: `shiplog ${serviceVersion} API reference` },
      uiConfig: { tagsSorter: 'alpha', displayOperationId: true },
    })
  })
}

/**
 * A client that takes longer than REQUEST_TIMEOUT_MS to send its whole
 * request is cut off with 408, so a slow or trickling client holds no
 * connection (Node's own check runs only every 30 s).
 */
function cutOffSlowClients(app: App, timeoutMs: number) {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw
    if (raw.complete) return done()
    const timer = setTimeout(() => {
      if (raw.complete || raw.socket.destroyed) return
      request.log.info('request timed out while its body was arriving')
      raw.socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      raw.socket.destroySoon()
    }, timeoutMs)
    const clear = () => clearTimeout(timer)
    raw.once('end', clear)
    raw.once('close', clear)
    reply.raw.once('finish', clear)
    done()
  })
}
