import { z } from 'zod'

/** Events of an account stream (`account-<accountId>`). Keys are only ever stored hashed. */
export const accountEvents = {
  AccountCreated: z.object({
    account_id: z.number().int(),
    name: z.string(),
    language_code: z.string(),
    private_key: z.object({ id: z.string(), hash: z.string() }),
    public_key: z.object({ id: z.string(), hash: z.string() }),
    at: z.number().int(),
  }),
} as const
