import { errorCodes, errorMeanings } from '../../domain/errors.ts'
import { hasV1ErrorForm } from '../error-answers.ts'

/*
 * What the route schemas cannot say about the API, added to the generated
 * OpenAPI document: the error bodies of every status, the headers of
 * read-your-writes and idempotency, `expand[]` as clients send it, the
 * multipart body of the import, examples, and no key on the health routes.
 * It only documents: requests and responses are validated by the routes' own schemas.
 */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is free-form JSON, walked key by key
type Json = Record<string, any>

const errorV1 = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] }
const errorV2 = {
  type: 'object',
  properties: {
    errors: {
      type: 'object',
      properties: { details: { type: 'string' } },
      required: ['details'],
      additionalProperties: { type: 'string', description: 'why this field (named as sent) is at fault' },
    },
  },
  required: ['errors'],
}

const errorStatuses = {
  400: 'Invalid request: a field of the wrong type, missing or out of bounds, named in the body',
  401: 'Missing or unknown API key',
  403: 'The public key on a route that takes the private key',
  404: 'No such resource in this account',
  409: 'Too many concurrent changes to the same records; retry',
  413: 'Body larger than the limit',
  415: 'Content-Type not accepted (JSON, or multipart for the import)',
  422: 'The Idempotency-Key was used with another body',
  429: 'Rate limited: retry after Retry-After seconds',
  503: 'Shedding load, or a dependency is away; retry after Retry-After seconds',
} as const
type ErrorStatus = keyof typeof errorStatuses
const errorCodeHeader = {
  'X-Shiplog-Error': {
    description: `The error's code (docs/errors.md): ${Object.entries(errorMeanings)
      .map(([code, meaning]) => `${code}: ${meaning}`)
      .join('; ')}`,
    schema: { type: 'string', enum: Object.keys(errorCodes) },
  },
}
const retryAfter = { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } }
const positionHeader = {
  'X-Shiplog-Position': {
    schema: { type: 'string', pattern: '^\\d+$' },
    description:
      'Log position after this write; a read on another process that sends it back sees the write (read-your-writes)',
  },
}

/** The meta key under which a route's `expand[]` schema lists the values it takes (query-api/shared/expand.ts). */
export const EXPAND_VALUES = 'x-expand-values'

/**
 * A query parameter as the document gives it to clients: `expand[]` repeated,
 * with its values; a time filter (`created_at`) as a deepObject, which a
 * client sends as `created_at[gt]=…`.
 */
function documentedParameter(p: Json): Json {
  if (p.in !== 'query') return p
  if (p.name === 'expand') {
    const { [EXPAND_VALUES]: values, ...schema } = p.schema ?? {}
    return {
      ...p,
      name: 'expand[]',
      style: 'form',
      explode: true,
      description: schema.description ?? 'Parts of the resource to expand; a path expands the levels above it too',
      schema: { type: 'array', items: values ? { type: 'string', enum: values } : { type: 'string' } },
    }
  }
  const bounds = (p.schema?.anyOf as Json[] | undefined)?.find((s) => s.type === 'object')
  if (bounds) {
    return {
      ...p,
      style: 'deepObject',
      explode: true,
      description: `\`${p.name}[gt]\`, \`[gte]\`, \`[lt]\`, \`[lte]\`: Unix seconds or ISO 8601, in any combination (\`${p.name}=<time>\` alone is that second)`,
      schema: { ...bounds, minProperties: 1 },
    }
  }
  return p
}

const unauthenticated = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/', '/docs'])

/** What the reference says of an operation beyond its route's schema, by `METHOD path`. */
export interface OperationNotes {
  /** A stable name for generated clients. */
  operationId: string
  /** The resource it belongs to (one of `apiTags`). */
  tag: ApiTag
  /** The public key may call it too (no 403). */
  publicKey?: boolean
  /** Called without a key (a customer's page, whose token is in its path): no 401 or 403. */
  noKey?: boolean
  /** A page for people (HTML): its answers, refusals included, are the ones `responses` gives. */
  page?: boolean
  /** A summary, for routes whose schema gives none. */
  summary?: string
  /** What the route's response schemas cannot say: a description, an example, headers, a type other than JSON. */
  responses?: Record<number, { description: string; example?: unknown; headers?: Json; contentType?: string }>
  requestExample?: unknown
  multipartFile?: boolean
}

const errorResponseName = (status: ErrorStatus, v1: boolean) => `Error${status}${v1 ? 'V1' : 'V2'}`

/** Each refusal once, for the v1 and the v2 error body, referenced by the operations that answer it. */
function errorResponses(used: ReadonlySet<string>): Json {
  const responses: Json = {}
  for (const [code, description] of Object.entries(errorStatuses)) {
    const status = Number(code) as ErrorStatus
    for (const v1 of [true, false]) {
      const name = errorResponseName(status, v1)
      if (used.has(name))
        responses[name] = {
          description,
          headers: {
            'X-Shiplog-Error': { $ref: '#/components/headers/X-Shiplog-Error' },
            ...(status === 429 || status === 503 ? retryAfter : {}),
          },
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${v1 ? 'ErrorV1' : 'ErrorV2'}` } } },
        }
    }
  }
  return responses
}

/**
 * The component schemas something refers to: the zod registry gives each
 * registered resource an input twin too, which no request here uses.
 */
function usedSchemas(document: Json): Json {
  const schemas: Json = { ...document.components?.schemas }
  let text = JSON.stringify(document.paths)
  const referenced = (name: string) => text.includes(`"#/components/schemas/${name}"`)
  // Components refer to each other: keep what paths use, then what those use, until nothing is added.
  let kept = Object.keys(schemas).filter(referenced)
  for (let added = true; added; ) {
    text = JSON.stringify(kept.map((name) => schemas[name]))
    const more = Object.keys(schemas).filter((name) => !kept.includes(name) && referenced(name))
    added = more.length > 0
    kept = [...kept, ...more]
  }
  return Object.fromEntries(kept.map((name) => [name, schemas[name]]))
}

/**
 * The refusals an operation can answer: every authenticated one 400, 401, 429
 * and 503; 403 where only the private key may call; 404 on a resource's path;
 * 409 and 422 (an Idempotency-Key reused) on a change; 413 and 415 where
 * there is a body. The health and reference routes only 503.
 */
function errorStatusesOf(method: string, path: string, note: OperationNotes): ErrorStatus[] {
  if (unauthenticated.has(path)) return [503]
  if (note.page) return [429, 503]
  if (note.noKey) return [400, 404, 429, 503]
  const change = method !== 'get'
  const body = method === 'post' || method === 'put' || method === 'patch'
  const statuses: [ErrorStatus, boolean][] = [
    [400, true],
    [401, true],
    [403, !note.publicKey],
    [404, path.includes('{')],
    [409, change],
    [413, body],
    [415, body],
    [422, change],
    [429, true],
    [503, true],
  ]
  return statuses.filter(([, applies]) => applies).map(([status]) => status)
}

/** The resources the reference groups operations under. */
export const apiTags = {
  orders: 'Orders with their fulfillments, trackers, line items and history',
  trackers: 'Trackers: batch upserts, listing, polling now',
  'tracking events': "A carrier's events on the trackers they concern",
  jobs: 'Imports and batch operations, run in the background',
  'pickup points': 'Pickup points, imported from CSV',
  'carrier services': 'Carrier services configured for delivery date estimation',
  estimation:
    'Delivery date estimation (the public key may ask), learned from the deliveries seen; carrier performance',
  webhooks: "Signed messages to the merchant's systems, their delivery log and replays",
  events: "The account's events as webhooks carry them: pulled a page at a time, or followed live",
  connections: "The merchant's Shopify and WooCommerce stores: their orders in by their own webhooks",
  notifications: 'Customer notifications: their types and previews',
  'tracking page': "The customer's branded tracking page: its settings, each order's link, its data as JSON",
  account: 'The account of the key',
  health: 'Liveness and readiness, no key',
} as const
export type ApiTag = keyof typeof apiTags

const successDescription: Record<number, string> = {
  200: 'Done',
  201: 'Created',
  202: 'Accepted: queued as a job',
}

/** Completes the generated document (fastify-swagger's transformObject). */
export function completeDocument(document: Json, notes: Record<string, OperationNotes>): Json {
  document.servers = [
    { url: '/', description: 'The service answering this document' },
    { url: '/api', description: 'The same service under /api (`/api/v2/orders` is `/v2/orders`)' },
  ]
  document.tags = Object.entries(apiTags).map(([name, description]) => ({ name, description }))
  const refusals = new Set<string>()
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const key = `${method.toUpperCase()} ${path}`
      const note = notes[key]
      if (!note) throw new Error(`the API reference has no notes for ${key} (server/api-reference.ts)`)
      const v1 = hasV1ErrorForm(path)
      operation.operationId = note.operationId
      operation.tags = [note.tag]
      operation.summary ??= note.summary
      operation.responses ??= {}
      if (note.page) {
        operation.responses = {}
        for (const [status, said] of Object.entries(note.responses ?? {})) {
          operation.responses[status] = {
            description: said.description,
            ...(said.headers ? { headers: said.headers } : {}),
            ...(said.contentType ? { content: { [said.contentType]: { schema: { type: 'string' } } } } : {}),
          }
        }
      }
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (!status.startsWith('2')) continue
        const said = note.responses?.[Number(status)]
        response.description = said?.description ?? successDescription[Number(status)] ?? 'Done'
        response.headers = { ...(method === 'get' ? {} : positionHeader), ...said?.headers }
        if (said?.contentType && response.content?.['application/json']) {
          response.content = { [said.contentType]: response.content['application/json'] }
        }
        const json = response.content?.[said?.contentType ?? 'application/json']
        if (json && said?.example !== undefined) json.example = said.example
      }
      if (unauthenticated.has(path) || note.noKey) operation.security = []
      for (const status of errorStatusesOf(method, path, note)) {
        const name = errorResponseName(status, v1)
        refusals.add(name)
        operation.responses[status] ??= { $ref: `#/components/responses/${name}` }
      }
      if (note.requestExample && operation.requestBody?.content?.['application/json']) {
        operation.requestBody.content['application/json'].example = note.requestExample
      }
      if (note.multipartFile) {
        operation.requestBody = {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: { file: { type: 'string', format: 'binary', description: 'semicolon-separated CSV' } },
                required: ['file'],
              },
            },
          },
        }
      }
      operation.parameters = (operation.parameters ?? []).map(documentedParameter)
      if (method !== 'get') {
        operation.parameters.push({
          in: 'header',
          name: 'Idempotency-Key',
          required: false,
          schema: { type: 'string', maxLength: 255 },
          description: 'A repeat of the request with the same key gets the first answer and changes nothing',
        })
      } else if (!unauthenticated.has(path)) {
        operation.parameters.push({
          in: 'header',
          name: 'X-Shiplog-Position',
          required: false,
          ...positionHeader['X-Shiplog-Position'],
        })
      }
    }
  }
  document.components = {
    ...document.components,
    schemas: { ...usedSchemas(document), ErrorV1: errorV1, ErrorV2: errorV2 },
    headers: errorCodeHeader,
    responses: errorResponses(refusals),
  }
  return document
}
