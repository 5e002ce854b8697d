import twilio from 'twilio'
import type { SmsSettings } from '../config.ts'

/*
 * Twilio Programmable Messaging, the SMS provider: `POST
 * /2010-04-01/Accounts/{sid}/Messages.json` with a form body and HTTP Basic
 * (the account SID and auth token). A 201 is a message accepted; a 400 is a
 * refusal that a retry would meet again (a number that cannot receive texts);
 * any other answer (429, 5xx, wrong credentials an operator may fix) or none
 * is a refusal for now. Its callbacks are signed
 * with the auth token (`X-Twilio-Signature`), checked with Twilio's own
 * library.
 */

export interface SmsMessage {
  to: string
  body: string
  /** Where Twilio reports the message's delivery. */
  statusCallback?: string
}

/** Why a message was not accepted; `permanent` when sending it again would meet the same answer. */
export class SmsRefused extends Error {
  override name = 'SmsRefused'
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}

const TIMEOUT_MS = 15_000

export async function sendSms(settings: SmsSettings, message: SmsMessage): Promise<{ sid: string; status: string }> {
  const form = new URLSearchParams({ To: message.to, Body: message.body })
  if (settings.messagingServiceSid) form.set('MessagingServiceSid', settings.messagingServiceSid)
  else form.set('From', settings.from!)
  if (message.statusCallback) form.set('StatusCallback', message.statusCallback)
  const url = `${settings.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
  } catch (error) {
    throw new SmsRefused(`the SMS provider did not answer: ${(error as Error).message}`, false)
  }
  const body = (await response.json().catch(() => ({}))) as {
    sid?: string
    status?: string
    code?: number
    message?: string
  }
  if (response.status === 201 || response.status === 200) {
    if (!body.sid) throw new SmsRefused('the SMS provider answered without a message sid', false)
    return { sid: body.sid, status: body.status ?? 'queued' }
  }
  const said = `the SMS provider answered ${response.status}${body.code ? ` (error ${body.code})` : ''}${body.message ? `: ${body.message}` : ''}`
  if (response.status !== 400) {
    const retryAfter = Number(response.headers.get('retry-after'))
    throw new SmsRefused(said, false, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined)
  }
  // A 400 (a number that cannot receive texts, a body refused): the same again would fail alike.
  throw new SmsRefused(said, true)
}

/** Whether a callback came from Twilio: its signature over the address it called and the form it posted. */
export const isSignedByTwilio = (
  authToken: string,
  signature: string | undefined,
  url: string,
  params: Record<string, string>,
) => signature !== undefined && twilio.validateRequest(authToken, signature, url, params)
