import type { FastifySchemaCompiler } from 'fastify'
import { safeParse, type $ZodIssue, type $ZodType } from 'zod/v4/core'

/** A request part (body, querystring, params, headers) that failed its zod schema. */
export class RequestValidationError extends Error {
  constructor(
    readonly issues: readonly $ZodIssue[],
    readonly part: string,
  ) {
    super('request validation failed')
    this.name = 'RequestValidationError'
  }
}

/**
 * Validates with zod and keeps each issue's input, which tells a missing key
 * (no input) from a key of the wrong JSON type.
 */
export const validatorCompiler: FastifySchemaCompiler<$ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const result = safeParse(schema, data, { reportInput: true })
    if (result.success) return { value: result.data }
    return { error: new RequestValidationError(result.error.issues, httpPart ?? 'body') }
  }

const keyOf = (issue: $ZodIssue, part: string) => (issue.path.length > 0 ? issue.path.join('.') : part)

const isTypeIssue = (issue: $ZodIssue) => issue.code === 'invalid_type' || issue.code === 'invalid_union'
const isWrongType = (issue: $ZodIssue) => isTypeIssue(issue) && issue.input !== undefined
const isMissing = (issue: $ZodIssue) => isTypeIssue(issue) && issue.input === undefined

/**
 * One message for all the issues, in input order: `Missing required keys: a, b`,
 * `Wrong data type for keys: c, d`, then any other reason per key; and the
 * reason for each key, for the v2 per-field error body.
 */
export function describeIssues(error: RequestValidationError): { message: string; fields: Record<string, string> } {
  const missing: string[] = []
  const wrongType: string[] = []
  const other: string[] = []
  const fields: Record<string, string> = {}
  for (const issue of error.issues) {
    const key = keyOf(issue, error.part)
    if (isMissing(issue)) {
      missing.push(key)
      fields[key] = 'is required'
    } else if (isWrongType(issue)) {
      wrongType.push(key)
      fields[key] = issue.code === 'invalid_type' ? `must be of type ${issue.expected}` : 'has the wrong data type'
    } else {
      other.push(`${key}: ${issue.message}`)
      fields[key] = issue.message
    }
  }
  const parts = [
    missing.length > 0 && `Missing required keys: ${unique(missing).join(', ')}`,
    wrongType.length > 0 && `Wrong data type for keys: ${unique(wrongType).join(', ')}`,
    ...other,
  ].filter((p): p is string => Boolean(p))
  return { message: parts.join('; '), fields }
}

const unique = (keys: string[]) => [...new Set(keys)]
