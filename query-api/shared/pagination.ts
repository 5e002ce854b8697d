import { z } from 'zod'
import type { Page } from '../../shared/read-store/port.ts'

const id = z.coerce.number().int('must be an integer id').positive('must be a positive id').max(Number.MAX_SAFE_INTEGER)

/** The pagination parameters every index endpoint takes. */
export const paginationQuery = {
  limit: z.coerce.number().int('must be an integer from 1 to 100').min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100').default(10),
  starting_after: id.optional(),
  ending_before: id.optional(),
}

/** The list envelope of index responses: newest id first, `has_more` when the page is not the end. */
export const listEnvelope = <D>(page: Page<D>, render: (doc: D) => unknown) => ({
  object: 'list' as const,
  has_more: page.hasMore,
  data: page.docs.map((d) => render(d.doc)),
})

/**
 * The same pagination over a list already in memory (an order's history):
 * descending ids, the cursors and has_more exactly as the read store pages.
 */
export function pageOf<T extends { id: number }>(items: readonly T[], q: { limit: number; startingAfter?: number; endingBefore?: number }) {
  const inRange = items
    .filter((i) => (q.startingAfter === undefined || i.id > q.startingAfter) && (q.endingBefore === undefined || i.id < q.endingBefore))
    .sort((a, b) => b.id - a.id)
  const forward = q.startingAfter !== undefined && q.endingBefore === undefined
  const page = forward ? inRange.slice(-q.limit) : inRange.slice(0, q.limit)
  return { object: 'list' as const, has_more: inRange.length > q.limit, data: page }
}
