import { compile, safeParse, type $ZodIssue, type $ZodType } from 'zod/v4/core'

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
 * Each request schema compiled once by zod into a parser of its own, which
 * builds the output without zod's intermediate result objects. Input
 * it refuses is parsed again by zod's runtime, so issues read as they always do.
 */
const compiled = new WeakMap<$ZodType, $ZodType>()
const compiledOf = <S extends $ZodType>(schema: S): S => {
  let parser = compiled.get(schema)
  if (!parser) {
    parser = compile(schema)
    compiled.set(schema, parser)
  }
  return parser as S
}

/** Parses a request part with its schema, keeping each issue's input, which tells a missing key (no input) from a key of the wrong JSON type. */
export const parseRequestPart = <S extends $ZodType>(schema: S, data: unknown) =>
  safeParse(compiledOf(schema), data, { reportInput: true })

const keyOf = (issue: $ZodIssue, part: string) => (issue.path.length > 0 ? issue.path.join('.') : part)

const isTypeIssue = (issue: $ZodIssue) => issue.code === 'invalid_type' || issue.code === 'invalid_union'
const isWrongType = (issue: $ZodIssue) => isTypeIssue(issue) && issue.input !== undefined
/** A value that cannot be read as its kind (see UNREADABLE in shared/domain/fields.ts). */
const isUnreadable = (issue: $ZodIssue) => issue.code === 'custom' && issue.params?.unreadable === true
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
 * One message for all the issues, and the reason for each key (the v2
 * per-field error body). When any key has the wrong type or a value that
 * cannot be read, the message is the specification's form and nothing else:
 * `Wrong data type for keys: a, b`, those keys in input order. Otherwise
 * `Missing required keys: c, d`, then any other reason per key, joined by `; `.
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
    if (issue.code === 'unrecognized_keys') {
      for (const unknown of issue.keys) {
        const named = [...issue.path, unknown].join('.')
        other.push(`${named}: is not a known field`)
        fields[named] = 'is not a known field'
      }
    } else if (isMissing(issue)) {
      missing.push(key)
      fields[key] = 'is required'
    } else if (isWrongType(issue)) {
      wrongType.push(key)
      fields[key] = issue.code === 'invalid_type' ? `must be of type ${issue.expected}` : 'has the wrong data type'
    } else if (isUnreadable(issue)) {
      wrongType.push(key)
      fields[key] = issue.message
    } else {
      other.push(`${key}: ${issue.message}`)
      fields[key] = issue.message
    }
  }
  if (wrongType.length > 0) return { message: `Wrong data type for keys: ${unique(wrongType).join(', ')}`, fields }
  const parts = [missing.length > 0 && `Missing required keys: ${unique(missing).join(', ')}`, ...other].filter(
    (p): p is string => Boolean(p),
  )
  return { message: parts.join('; '), fields }
}

const unique = (keys: string[]) => [...new Set(keys)]
