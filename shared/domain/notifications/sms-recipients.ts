import type { DomainEvent } from '../events/index.ts'
import type { smsRecipientEvents } from '../events/sms-events.ts'

export type SmsRecipientEvent = Extract<DomainEvent, { type: keyof typeof smsRecipientEvents }>

/** Phone numbers are E.164 (`+33612345678`): safe in a stream name as they are. */
export const smsRecipientStream = (accountId: number, phone: string) => `smsrecipient-${accountId}_${phone}`

/*
 * The words a customer answers a text with to stop or start them again: the
 * carriers' and Twilio's standard ones, and French. Only a message that is
 * one of them (any case, spaces and a final full stop aside) counts.
 */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'ARRET', 'ARRÊT'])
const OPT_IN = new Set(['START', 'YES', 'UNSTOP'])

export const keywordOf = (body: string): { keyword: string; optOut: boolean } | undefined => {
  const keyword = body
    .trim()
    .replace(/[.!]+$/, '')
    .toUpperCase()
  if (OPT_OUT.has(keyword)) return { keyword, optOut: true }
  if (OPT_IN.has(keyword)) return { keyword, optOut: false }
  return undefined
}

export interface SmsRecipientState {
  id: number
  optedOut: boolean
}

export interface SmsReply {
  phone: string
  body: string
  at: number
  /** The recipient's id, used if this is the first word from this phone. */
  recipient_id: number
}

/** A reply that changes the recipient's choice is recorded; any other, or the same twice, records nothing. */
export function decideSmsReply(command: SmsReply, state: SmsRecipientState | undefined): SmsRecipientEvent[] {
  const word = keywordOf(command.body)
  if (!word || word.optOut === (state?.optedOut ?? false)) return []
  const data = {
    recipient_id: state?.id ?? command.recipient_id,
    phone: command.phone,
    keyword: word.keyword,
    at: command.at,
  }
  return [word.optOut ? { type: 'SmsRecipientOptedOut', data } : { type: 'SmsRecipientOptedIn', data }]
}

export const evolveSmsRecipient = (
  _state: SmsRecipientState | undefined,
  event: SmsRecipientEvent,
): SmsRecipientState => ({
  id: event.data.recipient_id,
  optedOut: event.type === 'SmsRecipientOptedOut',
})
