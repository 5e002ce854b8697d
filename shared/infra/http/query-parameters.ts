import type { FastifyRequest } from 'fastify'
import { closest, distance } from 'fastest-levenshtein'
import { z } from 'zod'
import { validationError } from '../../domain/errors.ts'

/*
 * A query parameter an API route does not declare is refused, not ignored: a
 * typo in a filter (`order_numbr`) would otherwise answer every order of the
 * account, and a script acting on the list would act on all of them. The
 * declared set is the route's querystring schema, the one the OpenAPI
 * document is made of, so the check and the document cannot drift. Pages for
 * people (`/track…`) keep ignoring what they do not use: links in e-mails
 * carry `utm_*`.
 */

const declaredKeys = new WeakMap<object, ReadonlySet<string>>()

/** The top-level keys a querystring schema declares (`created_at[gt]` arrives as `created_at`). */
function declaredKeysOf(schema: unknown): ReadonlySet<string> {
  if (schema === undefined || schema === null) return new Set()
  let keys = declaredKeys.get(schema)
  if (!keys) {
    let inner: unknown = schema
    while (inner instanceof z.ZodPipe) inner = inner.in
    keys = new Set(inner instanceof z.ZodObject ? Object.keys(inner.shape) : [])
    declaredKeys.set(schema, keys)
  }
  return keys
}

const TIME_BOUNDS = new Set(['gt', 'gte', 'lt', 'lte'])

/** The parameter the sender most likely meant, if one is close enough to say so. */
function likelyMeant(unknown: string, declared: ReadonlySet<string>): string | undefined {
  const names = [...declared]
  // A bound sent bare, as a client reading an object parameter without its style sends it.
  if (TIME_BOUNDS.has(unknown)) {
    const filter = names.find((n) => n === 'created_at') ?? names.find((n) => n.endsWith('_at'))
    if (filter) return `${filter}[${unknown}]`
  }
  if (names.length === 0) return undefined
  const best = closest(unknown, names)
  return distance(unknown, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined
}

/** A preValidation hook: refuses, with a 400 naming each, the query parameters a /v1 or /v2 route does not declare. */
export async function refuseUnknownQueryParameters(request: FastifyRequest) {
  const route = request.routeOptions.url
  if (!route || !/^\/v\d+\//.test(route)) return
  const query = request.query
  if (query === null || typeof query !== 'object') return
  const declared = declaredKeysOf(request.routeOptions.schema?.querystring)
  const unknown = Object.keys(query).filter((key) => !declared.has(key))
  if (unknown.length === 0) return
  const fields: Record<string, string> = {}
  const reasons = unknown.map((key) => {
    const meant = likelyMeant(key, declared)
    fields[key] = `is not a parameter of this route${meant ? `; did you mean ${meant}?` : ''}`
    return `${key}${meant ? ` (did you mean ${meant}?)` : ''}`
  })
  throw validationError(
    `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${reasons.join(', ')}. This route takes ${
      declared.size > 0 ? [...declared].map((key) => (key === 'expand' ? 'expand[]' : key)).join(', ') : 'none'
    }`,
    fields,
  )
}
