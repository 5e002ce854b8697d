import t from 'tap'
import { checkAnswer } from '../support/contract.ts'

/* The live check every e2e answer goes through: it must refuse what the document does not say. */

const document = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v2/things/{id}': {
      get: {
        responses: {
          200: {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          404: { $ref: '#/components/responses/NotFound' },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { id: { type: 'integer' } },
        required: ['id'],
        additionalProperties: false,
      },
    },
    headers: { 'X-Shiplog-Error': { schema: { type: 'string', enum: ['SHIPLOG_ERR_NOT_FOUND'] } } },
    responses: {
      NotFound: {
        description: 'no',
        headers: { 'X-Shiplog-Error': { $ref: '#/components/headers/X-Shiplog-Error' } },
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  },
})
const json = (extra: Record<string, string> = {}) => new Headers({ 'content-type': 'application/json', ...extra })
const answer = (status: number, body: unknown, headers = json()) => ({
  method: 'GET',
  path: '/api/v2/things/7?expand[]=x',
  status,
  headers,
  body,
})

t.test('given the document, when an answer matches it, then it passes', async (t) => {
  t.doesNotThrow(() => checkAnswer(document, answer(200, { id: 7 })))
  const refusal = json({ 'x-shiplog-error': 'SHIPLOG_ERR_NOT_FOUND' })
  t.doesNotThrow(() => checkAnswer(document, answer(404, { errors: {} }, refusal)))
  t.doesNotThrow(() => checkAnswer(document, { ...answer(404, undefined), path: '/v2/elsewhere' }), 'no such path')
})

t.test('given the document, when an answer differs, then the check names the difference', async (t) => {
  t.throws(
    () => checkAnswer(document, answer(200, { id: 7, added: true })),
    /differs from its OpenAPI schema.*additional properties.*"added"/s,
  )
  t.throws(() => checkAnswer(document, answer(200, { id: '7' })), /\/id must be integer/)
  t.throws(() => checkAnswer(document, answer(409, {})), /answered 409, a status its OpenAPI operation does not list/)
  const unknownCode = json({ 'x-shiplog-error': 'SHIPLOG_ERR_OTHER' })
  t.throws(() => checkAnswer(document, answer(404, {}, unknownCode)), /SHIPLOG_ERR_OTHER, not documented/)
})
