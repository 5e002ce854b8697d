import { randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import rateLimit from '@fastify/rate-limit'
import swagger from '@fastify/swagger'
import { jsonSchemaTransform, serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { keyFromAuthorization } from '../accounts/keys.ts'
import qs from 'qs'
import type { Runtime } from '../runtime.ts'
import { notFound } from '../../domain/errors.ts'
import { authenticate } from './auth.ts'
import { handleError } from './errors.ts'
import { validatorCompiler } from './validation.ts'

export type App = Awaited<ReturnType<typeof createHttpServer>>

/**
 * The HTTP edge every role shares: request ids, JSON logs, bracketed query
 * strings (`created_at[gt]=`, `expand[]=`), zod validation, authentication and
 * the one error handler. Roles register their routes as plugins on it.
 */
export async function createHttpServer(rt: Pick<Runtime, 'config' | 'readStore' | 'logger'>) {
  const app = Fastify({
    loggerInstance: rt.logger,
    bodyLimit: rt.config.BODY_LIMIT,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : `req_${randomUUID()}`
    },
    routerOptions: {
      querystringParser: (s: string) => qs.parse(s, { arrayLimit: 100, depth: 1, parameterLimit: 200 }),
      ignoreTrailingSlash: true,
    },
    // `{app_url}/api/v2/...` is the same API as `/v2/...`.
    rewriteUrl: (req) => (req.url?.startsWith('/api/v2/') ? req.url.slice(4) : (req.url ?? '/')),
  }).withTypeProvider<ZodTypeProvider>()

  // JSON only (multipart where a route registers it): anything else is a 415.
  app.removeContentTypeParser('text/plain')
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.setErrorHandler(handleError)
  // The OpenAPI document comes from the same zod schemas that validate the requests.
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'shiplog',
        version: '1',
        description: 'Self-hostable shipment tracking: trackers, orders, jobs, pickup points, delivery date estimation',
      },
      components: { securitySchemes: { key: { type: 'http', scheme: 'bearer' } } },
      security: [{ key: [] }],
    },
    transform: jsonSchemaTransform,
  })
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger())
  // Per key (or address, without one), per process; 429 with Retry-After past the limit.
  await app.register(rateLimit, {
    max: rt.config.RATE_LIMIT_PER_MINUTE,
    timeWindow: 60_000,
    keyGenerator: (request) => keyFromAuthorization(request.headers.authorization) ?? request.ip,
    allowList: (request) => request.url === '/healthz' || request.url === '/readyz',
  })
  app.setNotFoundHandler((request, reply) =>
    handleError(notFound(`No route ${request.method} ${request.url.split('?')[0]}`), request, reply),
  )
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    // An unknown route is a 404 whoever asks; it has no key to check.
    if (!request.routeOptions.url) return
    request.caller = await authenticate(request, rt.readStore, request.routeOptions.config.auth ?? 'private')
  })
  return app
}
