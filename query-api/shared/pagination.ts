import { z } from 'zod'
import type { Condition, FindQuery, ReadStore } from '../../shared/infra/read-store/port.ts'

/** A number sent once in the query string: a repeated or bracketed key (an array, an object) is the wrong type. */
const queryNumber = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), schema)

const id = queryNumber(
  z.number().int('must be an integer id').positive('must be a positive id').max(Number.MAX_SAFE_INTEGER),
)

/** The pagination parameters every index endpoint takes. */
export const paginationQuery = {
  limit: queryNumber(
    z
      .number()
      .int('must be an integer from 1 to 100')
      .min(1, 'must be from 1 to 100')
      .max(100, 'must be from 1 to 100'),
  )
    .default(10)
    .describe('Items in the page, 1 to 100'),
  starting_after: id
    .optional()
    .describe('Items with greater ids than this one (newer): the page before, in a newest-first list'),
  ending_before: id
    .optional()
    .describe(
      'Items with lower ids than this one (older): the next page of a newest-first list is ending_before=<the last id>',
    ),
}

export interface PaginationParams {
  limit: number
  starting_after?: number
  ending_before?: number
}

/** Equality conditions for the filters a request sets; unset ones are left out. */
export const whereEqual = (filters: Record<string, string | undefined>): Condition[] =>
  Object.entries(filters).flatMap(([field, value]) =>
    value === undefined ? [] : [{ field, op: 'eq' as const, value }],
  )

/** The read store query of a page of an account's collection. */
export const pageQuery = (accountId: number, q: PaginationParams, where: readonly Condition[]): FindQuery => ({
  accountId,
  where,
  startingAfter: q.starting_after,
  endingBefore: q.ending_before,
  limit: q.limit,
})

/**
 * One page of an account's collection as the list envelope of index
 * responses: newest id first, `has_more` when the page is not the end.
 */
export async function listPage<D, R>(
  store: ReadStore,
  collection: string,
  accountId: number,
  q: PaginationParams,
  where: readonly Condition[],
  render: (doc: D) => R,
) {
  const page = await store.find<D>(collection, pageQuery(accountId, q, where))
  return listEnvelope(
    page.docs.map((d) => render(d.doc)),
    page.hasMore,
  )
}

/** The list envelope of index responses: `data` newest id first, `has_more` when the page is not the end. */
export const listEnvelope = <T>(data: T[], hasMore: boolean) => ({
  object: 'list' as const,
  has_more: hasMore,
  data,
})

/**
 * The same pagination over a list already in memory (an order's history):
 * descending ids, the cursors and has_more exactly as the read store pages.
 */
export function pageOf<T extends { id: number }>(
  items: readonly T[],
  q: { limit: number; startingAfter?: number; endingBefore?: number },
) {
  const inRange = items
    .filter(
      (i) =>
        (q.startingAfter === undefined || i.id > q.startingAfter) &&
        (q.endingBefore === undefined || i.id < q.endingBefore),
    )
    .sort((a, b) => b.id - a.id)
  const forward = q.startingAfter !== undefined && q.endingBefore === undefined
  const page = forward ? inRange.slice(-q.limit) : inRange.slice(0, q.limit)
  return { object: 'list' as const, has_more: inRange.length > q.limit, data: page }
}
