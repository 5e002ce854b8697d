import { z } from 'zod'
import { errorCodes, errorMeanings } from '../../domain/errors.ts'

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

const errorStatuses: Record<number, string> = {
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
}
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

const unauthenticated = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/', '/docs'])

/** What the reference says of an operation beyond its route's schema, by `METHOD path`. */
export interface OperationNotes {
  /** A stable name for generated clients. */
  operationId: string
  /** The resource it belongs to (one of `apiTags`). */
  tag: ApiTag
  /** A summary, for routes whose schema gives none. */
  summary?: string
  /** The success statuses it answers; 200 when not said. */
  statuses?: readonly number[]
  responses?: Record<number, { description: string; schema?: z.ZodType; example?: unknown; headers?: Json }>
  requestExample?: unknown
  multipartFile?: boolean
}

/** The resources the reference groups operations under. */
export const apiTags = {
  orders: 'Orders with their fulfillments, trackers, line items and history',
  trackers: 'Trackers: batch upserts, listing, polling now',
  'tracking events': "A carrier's events on the trackers they concern",
  jobs: 'Imports and batch operations, run in the background',
  'pickup points': 'Pickup points, imported from CSV',
  'carrier services': 'Carrier services configured for delivery date estimation',
  estimation: 'Delivery date estimation (the public key may ask)',
  webhooks: "Signed messages to the merchant's systems, their delivery log and replays",
  notifications: 'Customer notifications: their types and previews',
  account: 'The account of the key',
  health: 'Liveness and readiness, no key',
} as const
export type ApiTag = keyof typeof apiTags

const successDescription: Record<number, string> = {
  200: 'Done',
  201: 'Created',
  202: 'Accepted: queued as a job',
}

const jsonSchemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json

/** Completes the generated document (fastify-swagger's transformObject). */
export function completeDocument(document: Json, notes: Record<string, OperationNotes>): Json {
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ErrorV1: errorV1, ErrorV2: errorV2 },
  }
  document.servers = [{ url: '/', description: 'The service answering this document' }]
  document.tags = Object.entries(apiTags).map(([name, description]) => ({ name, description }))
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const key = `${method.toUpperCase()} ${path}`
      const note = notes[key]
      if (!note) throw new Error(`the API reference has no notes for ${key} (server/api-reference.ts)`)
      const v1 = path.startsWith('/v1/')
      operation.operationId = note.operationId
      operation.tags = [note.tag]
      operation.summary ??= note.summary
      operation.responses ??= {}
      // The success statuses it really answers, and no other.
      const statuses = note.statuses ?? [200]
      for (const status of Object.keys(operation.responses))
        if (status.startsWith('2') && !statuses.includes(Number(status))) delete operation.responses[status]
      for (const status of statuses)
        operation.responses[status] ??= { description: successDescription[status] ?? 'Done' }
      if (unauthenticated.has(path)) operation.security = []
      for (const [status, description] of Object.entries(errorStatuses)) {
        if (unauthenticated.has(path) && Number(status) !== 503) continue
        operation.responses[status] ??= {
          description,
          headers: { ...errorCodeHeader, ...(status === '429' || status === '503' ? retryAfter : {}) },
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${v1 ? 'ErrorV1' : 'ErrorV2'}` } } },
        }
      }
      for (const [status, response] of Object.entries(note.responses ?? {})) {
        operation.responses[status] = {
          description: response.description,
          headers: { ...(method === 'get' ? {} : positionHeader), ...response.headers },
          ...(response.schema || response.example
            ? {
                content: {
                  'application/json': {
                    ...(response.schema ? { schema: jsonSchemaOf(response.schema) } : {}),
                    ...(response.example ? { example: response.example } : {}),
                  },
                },
              }
            : {}),
        }
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
      operation.parameters = (operation.parameters ?? []).map((p: Json) =>
        p.in === 'query' && p.name === 'expand'
          ? {
              ...p,
              name: 'expand[]',
              style: 'form',
              explode: true,
              schema: { type: 'array', items: { type: 'string' } },
            }
          : p,
      )
      if (method === 'post' || method === 'put') {
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
  return document
}
