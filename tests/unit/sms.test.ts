import t from 'tap'
import twilio from 'twilio'
import { renderSms } from '../../reactions/sms/render.ts'
import { buildNotification } from '../../shared/domain/notifications/build.ts'
import { channelsFor } from '../../shared/domain/notifications/channels.ts'
import { quietUntil } from '../../shared/domain/notifications/quiet-hours.ts'
import {
  decideSmsReply,
  evolveSmsRecipient,
  keywordOf,
  type SmsRecipientEvent,
} from '../../shared/domain/notifications/sms-recipients.ts'
import { notificationSlugs } from '../../shared/domain/notifications/types.ts'
import { loadConfig } from '../../shared/infra/config.ts'
import { isSignedByTwilio } from '../../shared/infra/sms/twilio.ts'
import { countingIds, specOf } from '../support/decider.ts'

const LINK = 'https://track.shop.example/track/ldQcw3RxbxSpNGwRIWUHSeDWxB-eiVGL9h6uGgoiy6NLk_Nfg4c6-Q'
const facts = { slug: 'out_for_delivery', language: 'fr', brand: 'Atelier Lumière', order_number: 'W-2001', link: LINK }

t.test('an SMS: the brand first, GSM-7 where it can be, the link whole, two segments at most', async (t) => {
  const fr = renderSms(facts)
  t.match(fr.body, /^Atelier Lumière : votre commande W-2001/)
  t.match(fr.body, `Suivi : ${LINK}`)
  t.equal(fr.encoding, 'GSM-7', 'the typographic apostrophe of the French text becomes a GSM one')
  t.notMatch(fr.body, '’')
  t.ok(fr.segments <= 2)
  const accents = renderSms({ ...facts, slug: 'available_for_pickup', brand: 'Crêperie Ça' })
  t.equal(accents.encoding, 'GSM-7')
  t.match(accents.body, /^Creperie Ça :/, 'letters GSM lacks lose their accent; Ç, é, è, à stay')
  t.match(accents.body, 'pièce d')
  const emoji = renderSms({ ...facts, brand: 'Shop 🎁', link: null })
  t.equal(emoji.encoding, 'UCS-2', 'what has no GSM form keeps the message in UCS-2')
  t.match(emoji.body, '🎁')
  for (const slug of notificationSlugs)
    for (const language of ['en', 'fr']) {
      const long = renderSms({ ...facts, slug, language, brand: 'Maison '.repeat(40) })
      t.ok(long.segments <= 2, `${slug} ${language}: ${long.segments} segments`)
      t.ok(long.body.endsWith(LINK), 'the link is never cut')
    }
  const ucs = renderSms({ ...facts, brand: '🎁'.repeat(80) })
  t.equal(ucs.encoding, 'UCS-2')
  t.ok(ucs.segments <= 2, 'two UCS-2 segments at most')
})

t.test(
  'channels: SMS only where the type has it and the service has a provider, and a phone that parses',
  async (t) => {
    t.same(channelsFor('delivered', { sms: true }), ['email', 'sms'])
    t.same(channelsFor('shipped', { sms: true }), ['email'])
    t.same(channelsFor('delivered', { sms: false }), ['email'], 'no provider, no SMS')
    t.same(channelsFor('shipped', { sms: true, channels: { shipped: ['sms'] } }), ['sms'])
    const build = (phone: string | null, email: string | null = null) =>
      buildNotification('delivered', { email, phone, language_code: 'en' }, 100, countingIds(), {
        sms: true,
      }).notification_payloads.map((p) => p.type)
    t.same(build('+33612345678', 'jo@example.com'), ['email', 'sms'])
    t.same(build('+33612345678'), ['sms'])
    t.same(build('0612345678'), [], 'not E.164')
    t.same(build('+3361234'), [], 'E.164 in form, not a number')
  },
)

t.test('quiet hours: held until they end, across midnight or not', async (t) => {
  const paris = (iso: string) => new Date(iso)
  const night = { from: '21:00', until: '08:00' }
  // 23:30 in Paris (UTC+1 in November) waits until 08:00.
  t.equal(quietUntil(paris('2026-11-26T22:30:00Z'), 'Europe/Paris', night)?.toISOString(), '2026-11-27T07:00:00.000Z')
  t.equal(quietUntil(paris('2026-11-27T06:59:30Z'), 'Europe/Paris', night)?.toISOString(), '2026-11-27T07:00:00.000Z')
  t.equal(quietUntil(paris('2026-11-27T07:00:00Z'), 'Europe/Paris', night), undefined, '08:00 sharp is past')
  t.equal(quietUntil(paris('2026-11-27T12:00:00Z'), 'Europe/Paris', night), undefined)
  t.equal(
    quietUntil(paris('2026-11-27T12:00:00Z'), 'America/New_York', night)?.toISOString(),
    '2026-11-27T13:00:00.000Z',
    'the customer’s zone, not the server’s: 07:00 in New York',
  )
  const lunch = { from: '12:00', until: '14:00' }
  t.equal(quietUntil(paris('2026-11-27T11:30:00Z'), 'Europe/Paris', lunch)?.toISOString(), '2026-11-27T13:00:00.000Z')
  t.equal(quietUntil(paris('2026-11-27T11:30:00Z'), 'Europe/Paris', null), undefined, 'none set')
})

const replies = specOf({ decide: decideSmsReply, evolve: evolveSmsRecipient })
const reply = (body: string) => ({ phone: '+33612345678', body, at: 100, recipient_id: 7 })
const optedOut: SmsRecipientEvent = {
  type: 'SmsRecipientOptedOut',
  data: { recipient_id: 7, phone: '+33612345678', keyword: 'STOP', at: 50 },
}

t.test('STOP opts out, START opts in, anything else or the same twice records nothing', async (t) => {
  replies([])
    .when(reply('stop.'))
    .thenEvents(t, [{ ...optedOut, data: { ...optedOut.data, at: 100 } }])
  replies([])
    .when(reply('Arrêt'))
    .thenMatch(t, [{ type: 'SmsRecipientOptedOut', data: { keyword: 'ARRÊT' } }])
  replies([optedOut]).when(reply('STOP')).thenEvents(t, [])
  replies([optedOut])
    .when(reply('start'))
    .thenEvents(t, [
      { type: 'SmsRecipientOptedIn', data: { recipient_id: 7, phone: '+33612345678', keyword: 'START', at: 100 } },
    ])
  replies([]).when(reply('START')).thenEvents(t, [], 'never opted out')
  replies([]).when(reply('please stop sending me these')).thenEvents(t, [], 'only a message that is the word')
  t.same(keywordOf('  unsubscribe '), { keyword: 'UNSUBSCRIBE', optOut: true })
})

t.test('Twilio signatures: the address and every parameter count', async (t) => {
  const url = 'https://track.shop.example/v1/sms/status?account=1&payload=2'
  const params = { MessageSid: 'SM1', MessageStatus: 'delivered' }
  const signature = twilio.getExpectedTwilioSignature('secret', url, params)
  t.ok(isSignedByTwilio('secret', signature, url, params))
  t.notOk(isSignedByTwilio('other', signature, url, params), 'another auth token')
  t.notOk(isSignedByTwilio('secret', signature, url.replace('payload=2', 'payload=3'), params), 'another payload')
  t.notOk(isSignedByTwilio('secret', signature, url, { ...params, MessageStatus: 'undelivered' }))
  t.notOk(isSignedByTwilio('secret', undefined, url, params), 'no signature')
})

t.test('Twilio settings come together or not at all', async (t) => {
  t.throws(() => loadConfig({ TWILIO_ACCOUNT_SID: 'AC1' }), /TWILIO_ACCOUNT_SID/)
  t.throws(() => loadConfig({ TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't' }), /TWILIO_FROM/)
  t.ok(loadConfig({ TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't', TWILIO_MESSAGING_SERVICE_SID: 'MG1' }))
})
