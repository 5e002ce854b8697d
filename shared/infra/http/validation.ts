import type { FastifySchemaCompiler } from 'fastify'
import { safeParse, type $ZodIssue, type $ZodType } from 'zod/v4/core'

/** A request part (body, querystring, params, headers) that failed its zod schema. */
export class RequestValidationError extends Error {
  constructor(
    readonly issues: readonly $ZodIssue[],
    readonly part: string,
    /** The request part as it was sent: its keys' order is the order issues are reported in. */
    readonly input: unknown,
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
    return { error: new RequestValidationError(result.error.issues, httpPart ?? 'body', data) }
  }

const keyOf = (issue: $ZodIssue, part: string) => (issue.path.length > 0 ? issue.path.join('.') : part)

const isTypeIssue = (issue: $ZodIssue) => issue.code === 'invalid_type' || issue.code === 'invalid_union'
const isWrongType = (issue: $ZodIssue) => isTypeIssue(issue) && issue.input !== undefined
const isMissing = (issue: $ZodIssue) => isTypeIssue(issue) && issue.input === undefined

/**
 * Where a path sits in the input, level by level: an array's index, an
 * object's key position (a key the input lacks comes after all it has).
 */
function inputPlace(input: unknown, path: readonly PropertyKey[]): number[] {
  const place: number[] = []
  let at = input
  for (const key of path) {
    if (Array.isArray(at)) {
      place.push(Number(key))
      at = at[Number(key)]
    } else if (at !== null && typeof at === 'object') {
      const keys = Object.keys(at)
      const index = keys.indexOf(String(key))
      place.push(index < 0 ? keys.length : index)
      at = (at as Record<string, unknown>)[String(key)]
    } else {
      place.push(0)
      at = undefined
    }
  }
  return place
}

const byPlace = (a: number[], b: number[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

/**
 * One message for all the issues, each list in the order the keys came in the
 * input: `Wrong data type for keys: a, b` (the specification's form) first,
 * then `Missing required keys: c, d`, then any other reason per key, joined
 * by `; `; and the reason for each key, for the v2 per-field error body.
 */
export function describeIssues(error: RequestValidationError): { message: string; fields: Record<string, string> } {
  const missing: string[] = []
  const wrongType: string[] = []
  const other: string[] = []
  const fields: Record<string, string> = {}
  const places = new Map(error.issues.map((issue) => [issue, inputPlace(error.input, issue.path)]))
  const issues = [...error.issues].sort((a, b) => byPlace(places.get(a)!, places.get(b)!))
  for (const issue of issues) {
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
    wrongType.length > 0 && `Wrong data type for keys: ${unique(wrongType).join(', ')}`,
    missing.length > 0 && `Missing required keys: ${unique(missing).join(', ')}`,
    ...other,
  ].filter((p): p is string => Boolean(p))
  return { message: parts.join('; '), fields }
}

const unique = (keys: string[]) => [...new Set(keys)]
