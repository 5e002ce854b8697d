import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import twilio from 'twilio'

/*
 * A loopback server answering as Twilio's Programmable Messaging API is
 * documented to: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` with
 * a form body and HTTP Basic, 201 with the Message resource (`sid`, `status`
 * queued, …), 400 with Twilio's error object (`code`, `message`, `more_info`,
 * `status`), 401 for wrong credentials, 429 and 500 when told. It also calls
 * back as Twilio does, signing each call with X-Twilio-Signature: a message's
 * status to its StatusCallback, a customer's text to the inbound address.
 * Never the real Twilio.
 */

export interface SentSms {
  sid: string
  to: string
  from: string | null
  messagingServiceSid: string | null
  body: string
  statusCallback: string | null
}

export interface TwilioLoopback {
  apiUrl: string
  accountSid: string
  authToken: string
  from: string
  /** Every message accepted, in order. */
  messages: SentSms[]
  /** Every request made, accepted or not. */
  requests: number
  /** Answers for the next requests, in order (an answer spent is removed). */
  refuse: ('bad_number' | 'too_many' | 'server_error')[]
  waitFor(n: number, timeoutMs?: number): Promise<SentSms[]>
  /** Reports a message's status to its StatusCallback, signed (or signed wrong), as Twilio does. */
  report(message: SentSms, status: string, options?: { errorCode?: string; signature?: string }): Promise<Response>
  /** A customer's text to the service's inbound address, signed as Twilio does. */
  inbound(url: string, from: string, body: string, options?: { signature?: string }): Promise<Response>
  env(): Record<string, string>
}

const errors = {
  bad_number: {
    status: 400,
    code: 21211,
    message: "The 'To' number is not a valid phone number.",
  },
  too_many: { status: 429, code: 20429, message: 'Too Many Requests' },
  server_error: { status: 500, code: 20500, message: 'Internal Server Error' },
} as const

const twilioError = (status: number, code: number, message: string) => ({
  code,
  message,
  more_info: `https://www.twilio.com/docs/errors/${code}`,
  status,
})

/** Posts a form to `url` with Twilio's signature over the address and the form (or the one given). */
async function signedPost(authToken: string, url: string, params: Record<string, string>, signature?: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(authToken, url, params),
    },
    body: new URLSearchParams(params),
  })
}

export async function startTwilioLoopback(t: Test): Promise<TwilioLoopback> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`
  const authToken = randomBytes(16).toString('hex')
  const from = '+15005550006'
  const loopback = {
    accountSid,
    authToken,
    from,
    messages: [] as SentSms[],
    requests: 0,
    refuse: [] as TwilioLoopback['refuse'],
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => {
      loopback.requests++
      const answer = (status: number, body: object) => {
        response.writeHead(status, { 'content-type': 'application/json' })
        response.end(JSON.stringify(body))
      }
      const path = `/2010-04-01/Accounts/${accountSid}/Messages.json`
      if (request.method !== 'POST' || request.url !== path)
        return answer(404, twilioError(404, 20404, 'The requested resource was not found'))
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`
      if (request.headers.authorization !== expected) return answer(401, twilioError(401, 20003, 'Authenticate'))
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
      const refusal = loopback.refuse.shift()
      if (refusal) {
        const e = errors[refusal]
        return answer(e.status, twilioError(e.status, e.code, e.message))
      }
      const to = form.get('To')
      if (!to || !form.get('Body') || !(form.get('From') || form.get('MessagingServiceSid')))
        return answer(400, twilioError(400, 21604, "A 'To' phone number, a 'Body' and a sender are required."))
      const sms: SentSms = {
        sid: `SM${randomBytes(16).toString('hex')}`,
        to,
        from: form.get('From'),
        messagingServiceSid: form.get('MessagingServiceSid'),
        body: form.get('Body')!,
        statusCallback: form.get('StatusCallback'),
      }
      loopback.messages.push(sms)
      const now = new Date().toUTCString()
      answer(201, {
        account_sid: accountSid,
        api_version: '2010-04-01',
        body: sms.body,
        date_created: now,
        date_sent: null,
        date_updated: now,
        direction: 'outbound-api',
        error_code: null,
        error_message: null,
        from: sms.from,
        messaging_service_sid: sms.messagingServiceSid,
        num_media: '0',
        num_segments: '1',
        price: null,
        price_unit: 'USD',
        sid: sms.sid,
        status: 'queued',
        subresource_uris: { media: `/2010-04-01/Accounts/${accountSid}/Messages/${sms.sid}/Media.json` },
        to: sms.to,
        uri: `/2010-04-01/Accounts/${accountSid}/Messages/${sms.sid}.json`,
      })
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    ...loopback,
    apiUrl,
    get messages() {
      return loopback.messages
    },
    get requests() {
      return loopback.requests
    },
    get refuse() {
      return loopback.refuse
    },
    set refuse(value) {
      loopback.refuse = value
    },
    async waitFor(n, timeoutMs = 20_000) {
      const started = Date.now()
      while (loopback.messages.length < n) {
        if (Date.now() - started > timeoutMs)
          throw new Error(`expected ${n} SMS, got ${loopback.messages.length} (${loopback.requests} requests)`)
        await new Promise((r) => setTimeout(r, 25))
      }
      return loopback.messages
    },
    report(message, status, options = {}) {
      if (!message.statusCallback) throw new Error('the message has no StatusCallback')
      const params: Record<string, string> = {
        AccountSid: accountSid,
        MessageSid: message.sid,
        SmsSid: message.sid,
        MessageStatus: status,
        SmsStatus: status,
        To: message.to,
        From: from,
        ApiVersion: '2010-04-01',
        ...(options.errorCode ? { ErrorCode: options.errorCode } : {}),
      }
      return signedPost(authToken, message.statusCallback, params, options.signature)
    },
    inbound(url, customer, body, options = {}) {
      const params = {
        AccountSid: accountSid,
        MessageSid: `SM${randomBytes(16).toString('hex')}`,
        From: customer,
        To: from,
        Body: body,
        NumMedia: '0',
        ApiVersion: '2010-04-01',
      }
      return signedPost(authToken, url, params, options.signature)
    },
    env: () => ({
      TWILIO_ACCOUNT_SID: accountSid,
      TWILIO_AUTH_TOKEN: authToken,
      TWILIO_FROM: from,
      SHIPLOG_SMS_API_URL: apiUrl,
      SHIPLOG_SMS_RETRY_DELAY_MS: '100',
      SHIPLOG_SMS_ATTEMPTS: '3',
    }),
  }
}
