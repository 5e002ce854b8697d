import { z } from 'zod'

/** Events of an SMS recipient's stream (`smsrecipient-<accountId>_<E.164 phone>`): what the customer answered. */
export const smsRecipientEvents = {
  /** The customer answered STOP (or another opt-out word): no SMS to this phone from the account. */
  SmsRecipientOptedOut: z.object({
    recipient_id: z.number().int(),
    phone: z.string(),
    keyword: z.string(),
    at: z.number().int(),
  }),
  /** The customer answered START (or another opt-in word): SMS again. */
  SmsRecipientOptedIn: z.object({
    recipient_id: z.number().int(),
    phone: z.string(),
    keyword: z.string(),
    at: z.number().int(),
  }),
} as const
