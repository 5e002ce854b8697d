import { z } from 'zod'

/**
 * Events of an idempotency stream (`idempotency-<accountId>_<hash of the key>`):
 * the first response to a request sent with an Idempotency-Key, replayed to
 * every repeat of it.
 */
export const requestEvents = {
  IdempotentRequestCompleted: z.object({
    method: z.string(),
    path: z.string(),
    /** SHA-256 of the request body: the same key with another body is refused. */
    body_hash: z.string(),
    status: z.number().int(),
    body: z.unknown(),
    at: z.number().int(),
  }),
} as const
