import { createHash } from 'node:crypto'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

/*
 * Every answer a test gets through the test server is checked against the
 * server's own OpenAPI document: its status must be one the operation lists,
 * its JSON body must validate against that status's schema (closed objects:
 * a field added in code and not in the schema fails), and an error code must
 * be one the document names. A test that sees an answer the document does not
 * describe fails with the difference.
 */

type Json = Record<string, any>

interface Contract {
  operations: { method: string; pattern: RegExp; pointer: string; operation: Json }[]
  document: Json
  ajv: Ajv2020
  compiled: Map<string, ValidateFunction>
}

/** One compiled contract per distinct document: every test server of a run serves the same one. */
const contracts = new Map<string, Contract>()

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1')

function contractOf(text: string): Contract {
  const hash = createHash('sha256').update(text).digest('hex')
  const known = contracts.get(hash)
  if (known) return known
  const document = JSON.parse(text) as Json
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema(document, 'openapi')
  const operations = Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      // A parameter holds no dot, so /track/{token} never takes /track/{token}.json's answers.
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/.]+')}$`),
      pointer: `#/paths/${escapePointer(path)}/${method}`,
      operation,
    })),
  )
  const contract = { operations, document, ajv, compiled: new Map() }
  contracts.set(hash, contract)
  return contract
}

const resolve = (document: Json, node: Json): [Json, string | undefined] => {
  if (typeof node.$ref !== 'string') return [node, undefined]
  const pointer = node.$ref as string
  const target = pointer
    .slice(2)
    .split('/')
    .reduce<Json>((at, key) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], document)
  return [target, pointer]
}

/** Checks one answer against the document the server serves (its text, fetched once per server). */
export function checkAnswer(
  documentText: string,
  answer: { method: string; path: string; status: number; headers: Headers; body: unknown },
) {
  const contract = contractOf(documentText)
  const path = answer.path.split('?')[0]!.replace(/^\/api(?=\/)/, '')
  const found = contract.operations.find((o) => o.method === answer.method && o.pattern.test(path))
  // A path the API does not have (a 404 of the router), or the service's own pages: nothing to hold it to.
  if (!found) return
  const said = `${answer.method} ${answer.path} answered ${answer.status}`
  const listed = found.operation.responses?.[answer.status]
  if (!listed) throw new Error(`${said}, a status its OpenAPI operation does not list`)
  const [response, responsePointer] = resolve(contract.document, listed)
  const code = answer.headers.get('x-shiplog-error')
  if (code !== null) {
    const [header] = resolve(contract.document, response.headers?.['X-Shiplog-Error'] ?? {})
    if (!header.schema?.enum?.includes(code)) throw new Error(`${said} with X-Shiplog-Error ${code}, not documented`)
  }
  const isJson = (answer.headers.get('content-type') ?? '').includes('application/json')
  if (!isJson || answer.body === undefined) return
  const schema = response.content?.['application/json']?.schema
  if (!schema) throw new Error(`${said} with a JSON body its OpenAPI response does not describe`)
  const pointer = `${responsePointer ?? `${found.pointer}/responses/${answer.status}`}/content/application~1json/schema`
  let validate = contract.compiled.get(pointer)
  if (!validate) {
    validate = contract.ajv.compile({ $ref: `openapi${pointer}` })
    contract.compiled.set(pointer, validate)
  }
  if (!validate(answer.body)) {
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    throw new Error(`${said} with a body that differs from its OpenAPI schema:\n  ${errors.join('\n  ')}`)
  }
}
