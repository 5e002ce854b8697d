import { z } from 'zod'

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
const retryAfter = { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } }
const positionHeader = {
  'X-Shiplog-Position': {
    schema: { type: 'string', pattern: '^\\d+$' },
    description:
      'Log position after this write; a read on another process that sends it back sees the write (read-your-writes)',
  },
}

const unauthenticated = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/', '/docs'])

/** Success bodies documented beyond what a route's own schema says, by `METHOD path`. */
export interface OperationNotes {
  responses?: Record<number, { description: string; schema?: z.ZodType; example?: unknown; headers?: Json }>
  requestExample?: unknown
  multipartFile?: boolean
}

const jsonSchemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json

/** Completes the generated document (fastify-swagger's transformObject). */
export function completeDocument(document: Json, notes: Record<string, OperationNotes>): Json {
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ErrorV1: errorV1, ErrorV2: errorV2 },
  }
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const key = `${method.toUpperCase()} ${path}`
      const note = notes[key] ?? {}
      const v1 = path.startsWith('/v1/')
      operation.responses ??= {}
      if (unauthenticated.has(path)) operation.security = []
      for (const [status, description] of Object.entries(errorStatuses)) {
        if (unauthenticated.has(path) && Number(status) !== 503) continue
        operation.responses[status] ??= {
          description,
          ...(status === '429' || status === '503' ? { headers: retryAfter } : {}),
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
