import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { recordDeliveryReport, recordSmsReply } from '../../commands/notifications/sms.ts'
import { STATUS_CALLBACK_PATH } from '../../reactions/sms/sender.ts'
import { notFound, ShiplogError } from '../../shared/domain/errors.ts'
import { smsSettings } from '../../shared/infra/config.ts'
import { publicUrlOf } from '../../shared/infra/http/public-url.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { isSignedByTwilio } from '../../shared/infra/sms/twilio.ts'

/*
 * What Twilio calls back: a message's delivery status, and what a customer
 * texts to the service's number. Both come as forms, signed with the auth
 * token over the address Twilio called (SHIPLOG_PUBLIC_URL with the path);
 * an unsigned or forged call is a 403. Both answer an empty TwiML document.
 */

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'
const twiml = z.string().meta({ description: 'An empty TwiML document: nothing to answer the customer' })
/** Twilio's final statuses; the others (queued, sent, …) are on the way. */
const FINAL: Record<string, boolean | undefined> = { delivered: true, undelivered: false, failed: false }

export function smsWriteRoutes(app: App, rt: Runtime) {
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>()
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    )
    // The signature is checked before the query and the form are validated: an unsigned call learns nothing of their shape.
    scope.addHook('preValidation', async (request) => {
      const settings = smsSettings(rt.config)
      if (!settings) throw notFound('SMS is not configured on this service')
      const signature = request.headers['x-twilio-signature']
      const body = request.body
      const params = body !== null && typeof body === 'object' ? (body as Record<string, string>) : {}
      const url = `${publicUrlOf(rt, request)}${request.originalUrl}`
      if (!isSignedByTwilio(settings.authToken, typeof signature === 'string' ? signature : undefined, url, params))
        throw new ShiplogError('SHIPLOG_ERR_FORBIDDEN', 'X-Twilio-Signature does not sign this request')
    })

    scope.post(
      STATUS_CALLBACK_PATH,
      {
        config: { auth: 'none' },
        schema: {
          querystring: z.object({
            account: z.coerce.number().int().positive(),
            payload: z.coerce.number().int().positive(),
          }),
          body: z.looseObject({
            MessageSid: z.string().min(1),
            MessageStatus: z.string().min(1),
            ErrorCode: z.string().optional(),
            To: z.string().optional(),
          }),
          response: { 200: twiml },
          summary: 'Twilio’s delivery report of a customer SMS (signed with X-Twilio-Signature)',
        },
      },
      async (request, reply) => {
        const { MessageSid, MessageStatus, ErrorCode, To } = request.body
        const delivered = FINAL[MessageStatus]
        if (delivered !== undefined) {
          const known = await recordDeliveryReport(rt, request.query.account, request.query.payload, {
            delivered,
            messageSid: MessageSid,
            ...(To ? { to: To } : {}),
            ...(delivered
              ? {}
              : { error: `the provider reported ${MessageStatus}${ErrorCode ? ` (error ${ErrorCode})` : ''}` }),
          })
          if (!known) throw notFound('No SMS of this account has this payload id')
        }
        return reply.type('text/xml').send(EMPTY_TWIML)
      },
    )

    scope.post(
      '/v1/sms/inbound',
      {
        config: { auth: 'none' },
        schema: {
          body: z.looseObject({ From: z.string().min(1), Body: z.string() }),
          response: { 200: twiml },
          summary: 'A text a customer sent to the service’s number (Twilio’s inbound webhook): STOP and START',
        },
      },
      async (request, reply) => {
        await recordSmsReply(rt, request.body.From, request.body.Body, request.id)
        return reply.type('text/xml').send(EMPTY_TWIML)
      },
    )
  })
}
