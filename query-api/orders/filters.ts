import { z } from 'zod'
import { parseDateTime } from '../../shared/domain/time.ts'
import { validationError } from '../../shared/domain/errors.ts'
import { DATETIME_MESSAGE } from '../../shared/domain/fields.ts'
import type { Condition } from '../../shared/infra/read-store/port.ts'

const bound = z.string().refine((v) => parseDateTime(v) !== undefined, DATETIME_MESSAGE)

/** `created_at=<time>` (that second) or `created_at[gt|gte|lt|lte]=<time>`, in any combination; Unix seconds or ISO 8601. */
export const timeFilter = z.union([
  bound,
  z
    .strictObject({ gt: bound, gte: bound, lt: bound, lte: bound })
    .partial()
    .refine((o) => Object.keys(o).length > 0, 'needs gt, gte, lt or lte'),
])
export type TimeFilter = z.infer<typeof timeFilter>

export function timeConditions(field: string, filter: TimeFilter | undefined): Condition[] {
  if (filter === undefined) return []
  if (typeof filter === 'string') return [{ field, op: 'eq', value: parseDateTime(filter)! }]
  return (['gt', 'gte', 'lt', 'lte'] as const)
    .filter((op) => filter[op] !== undefined)
    .map((op) => ({ field, op, value: parseDateTime(filter[op]!)! }))
}

/**
 * The spec's restrictions: one time filter at most; a cursor must not point
 * away from a one-sided range (starting_after with only an upper bound, or
 * ending_before with only a lower bound). Each answers 400 naming the rule.
 */
export function checkTimeFilterRules(query: {
  created_at?: TimeFilter
  ordered_at?: TimeFilter
  starting_after?: number
  ending_before?: number
}) {
  if (query.created_at !== undefined && query.ordered_at !== undefined) {
    throw validationError('Only one of created_at and ordered_at may be used in a query, never both', {
      created_at: 'cannot be combined with ordered_at',
      ordered_at: 'cannot be combined with created_at',
    })
  }
  const [field, filter] =
    query.created_at !== undefined ? ['created_at', query.created_at] : ['ordered_at', query.ordered_at]
  if (filter === undefined || typeof filter === 'string') return
  const lower = filter.gt !== undefined || filter.gte !== undefined
  const upper = filter.lt !== undefined || filter.lte !== undefined
  const afterOnly = query.starting_after !== undefined && query.ending_before === undefined
  const beforeOnly = query.ending_before !== undefined && query.starting_after === undefined
  if (afterOnly && upper && !lower) {
    throw validationError(
      `With starting_after, a ${field} filter using only lt/lte is not allowed; add a gt or gte bound`,
      {
        [field]: 'needs a gt or gte bound with starting_after',
      },
    )
  }
  if (beforeOnly && lower && !upper) {
    throw validationError(
      `With ending_before, a ${field} filter using only gt/gte is not allowed; add a lt or lte bound`,
      {
        [field]: 'needs a lt or lte bound with ending_before',
      },
    )
  }
}
