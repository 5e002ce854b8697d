import { z } from 'zod'

/** What a console user may do: an owner also manages keys and users; a member reads and handles parcels. */
export const consoleRoles = ['owner', 'member'] as const
export type ConsoleRole = (typeof consoleRoles)[number]

const at = z.number().int()

/**
 * Events of a console user's stream (`user-<e-mail>`): one stream per
 * address, so an address names one user at most. Passwords are only ever
 * stored hashed (scrypt).
 */
export const userEvents = {
  UserCreated: z.object({
    user_id: z.number().int(),
    account_id: z.number().int(),
    email: z.string(),
    role: z.enum(consoleRoles),
    password_hash: z.string(),
    at,
  }),
  UserPasswordReset: z.object({ password_hash: z.string(), at }),
  /** The user signed out: every session of theirs begun before `before` (Unix milliseconds) ends, on every device. */
  UserSignedOut: z.object({ before: z.number().int(), at }),
  UserDeleted: z.object({ at }),
} as const
