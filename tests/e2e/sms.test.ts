import t, { type Test } from 'tap'
import { freePort } from '../support/process.ts'
import { queueHolds } from '../support/progress.ts'
import { readAfter, startTestServer, type TestServer } from '../support/server.ts'
import { startTwilioLoopback, type TwilioLoopback } from '../support/twilio.ts'

/*
 * Customer SMS end to end, through a loopback server answering as Twilio's
 * Messaging API is documented to (tests/support/twilio.ts), never Twilio:
 * built, sent, retried, refused, reported, opted out, held in quiet hours.
 */

const T0 = 1_795_000_000
const PHONE = '+33612345678'
const PAYLOADS = 'expand[]=notifications.notification_payloads&expand[]=notifications.notification_type'

/** A server on a port known beforehand, so that its public address (and Twilio's callbacks) reach it. */
async function start(t: Test, twilio: TwilioLoopback | undefined, env: Record<string, string> = {}) {
  const port = await freePort()
  const server = await startTestServer(t, {
    env: { PORT: String(port), SHIPLOG_PUBLIC_URL: `http://127.0.0.1:${port}`, ...(twilio?.env() ?? {}), ...env },
  })
  // Any hour of the day: the quiet hours have a test of their own.
  const quiet = await server.request('PATCH', '/v2/account', { body: { sms_quiet_hours: null } })
  if (quiet.status !== 200) throw new Error(JSON.stringify(quiet.body))
  await server.request('PATCH', '/v2/tracking_page', { body: { brand_name: 'Atelier' } })
  return server
}

async function tracker(server: TestServer, n: string, extra: Record<string, unknown> = {}) {
  const created = await server.request('POST', '/v1/trackers', {
    body: {
      trackers: [
        { order_number: `S-${n}`, tracking_number: `TN-S${n}`, phone: PHONE, address_country: 'FR', ...extra },
      ],
    },
  })
  if (created.status !== 201) throw new Error(JSON.stringify(created.body))
  return created.body.trackers[0] as { id: number; order_id: number }
}

async function push(server: TestServer, n: string, code: string, happenedAt = T0) {
  const pushed = await server.request('POST', '/v2/trackers/events', {
    body: { events: [{ tracking_number: `TN-S${n}`, event_type_code: code, happened_at: happenedAt }] },
  })
  if (pushed.status !== 201) throw new Error(JSON.stringify(pushed.body))
  return pushed.headers.get('x-shiplog-position') ?? undefined
}

const smsPayloadsOf = async (server: TestServer, n: string, position?: string) => {
  const list = await readAfter(server, `/v2/trackers?tracking_number=TN-S${n}&${PAYLOADS}`, position)
  return (list.body.data[0].notifications.data as any[]).flatMap((notification) =>
    notification.notification_payloads.data
      .filter((p: any) => p.type === 'sms')
      .map((p: any) => ({ ...p, slug: notification.notification_type.slug })),
  )
}

/** Polls until the tracker's SMS payload of this type is past `from`. */
async function smsPayload(server: TestServer, n: string, slug: string, from = 'built') {
  for (let i = 0; i < 400; i++) {
    const payload = (await smsPayloadsOf(server, n)).find((p) => p.slug === slug)
    if (payload && payload.status !== from) return payload
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`the ${slug} SMS stayed ${from}`)
}

t.test('out for delivery: texted once, brand first, with the page link; a report moves it to delivered', async (t) => {
  const twilio = await startTwilioLoopback(t)
  const server = await start(t, twilio)
  const created = await tracker(server, '1')
  await push(server, '1', 'out_for_delivery')
  const [sms] = await twilio.waitFor(1)
  t.equal(sms!.to, PHONE)
  t.equal(sms!.from, twilio.from)
  t.match(sms!.body, /^Atelier: your order S-1 is out for delivery/)
  const link = await server.request('GET', `/v2/orders/${created.order_id}/tracking_link`)
  t.match(sms!.body, `Follow it: ${link.body.url}`)
  t.equal(sms!.statusCallback?.startsWith(`${server.url}/v1/sms/status?account=${server.accountId}&payload=`), true)
  const sent = await smsPayload(server, '1', 'out_for_delivery')
  t.match(sent, { object: 'notification_payload', type: 'sms', status: 'dispatched', dispatched: true, error: null })

  const reported = await twilio.report(sms!, 'delivered')
  t.equal(reported.status, 200)
  t.match(await reported.text(), '<Response></Response>')
  t.match(await smsPayload(server, '1', 'out_for_delivery', 'dispatched'), { status: 'delivered', dispatched: true })
  t.equal((await twilio.report(sms!, 'delivered')).status, 200, 'a report told twice records nothing more')
  t.equal(twilio.messages.length, 1, 'sent once')
})

t.test(
  'channels: shipped sends no SMS unless turned on; e-mail can be turned off; no Twilio, no SMS payload',
  async (t) => {
    const twilio = await startTwilioLoopback(t)
    const server = await start(t, twilio)
    const types = await server.request('GET', '/v2/notification_types')
    const channels = Object.fromEntries(types.body.data.map((ty: any) => [ty.slug, ty.channels]))
    t.same(channels.shipped, ['email'])
    t.same(channels.delivered, ['email', 'sms'])
    await tracker(server, '2')
    await push(server, '2', 'transit')
    await push(server, '2', 'delivered', T0 + 60)
    await twilio.waitFor(1)
    const payloads = await smsPayloadsOf(server, '2')
    t.same(
      payloads.map((p) => p.slug),
      ['delivered'],
      'delivered is texted, shipped is not',
    )

    const changed = await server.request('PATCH', '/v2/notification_types/shipped', { body: { channels: ['sms'] } })
    t.equal(changed.status, 200)
    t.match(changed.body, { slug: 'shipped', enabled: true, channels: ['sms'] })
    await tracker(server, '3', { email: 'jo@example.com' })
    const position = await push(server, '3', 'transit')
    await twilio.waitFor(2)
    const list = await readAfter(server, `/v2/trackers?tracking_number=TN-S3&${PAYLOADS}`, position)
    const shipped = list.body.data[0].notifications.data[0]
    t.same(
      shipped.notification_payloads.data.map((p: any) => p.type),
      ['sms'],
      'only the channels chosen',
    )
    for (const body of [{ channels: ['sms', 'sms'] }, { channels: ['fax'] }, {}]) {
      const refused = await server.request('PATCH', '/v2/notification_types/shipped', { body })
      t.equal(refused.status, 400, JSON.stringify(body))
    }

    const plain = await start(t, undefined)
    await tracker(plain, '4')
    const pushed = await push(plain, '4', 'out_for_delivery')
    const none = await readAfter(plain, `/v2/trackers?tracking_number=TN-S4&${PAYLOADS}`, pushed)
    t.same(none.body.data[0].notifications.data[0].notification_payloads.data, [], 'without Twilio settings')
  },
)

t.test('a number that cannot be texted is failed at once; a 429 or a 500 is retried', async (t) => {
  const twilio = await startTwilioLoopback(t)
  const server = await start(t, twilio)
  twilio.refuse = ['bad_number']
  await tracker(server, '5')
  await push(server, '5', 'out_for_delivery')
  const failed = await smsPayload(server, '5', 'out_for_delivery')
  t.match(failed, { status: 'failed', dispatched: false, error: /400 \(error 21211\).*not a valid phone number/ })
  t.equal(twilio.requests, 1, 'not retried')

  twilio.refuse = ['too_many', 'server_error']
  await tracker(server, '6')
  await push(server, '6', 'out_for_delivery')
  t.match(await smsPayload(server, '6', 'out_for_delivery'), { status: 'dispatched' })
  t.equal(twilio.requests, 4, 'two refusals, then sent')

  twilio.refuse = ['server_error', 'server_error', 'server_error']
  await tracker(server, '7')
  await push(server, '7', 'out_for_delivery')
  t.match(await smsPayload(server, '7', 'out_for_delivery'), { status: 'failed', error: /500/ }, 'after every attempt')

  await tracker(server, '8', { phone: '12' })
  const position = await push(server, '8', 'out_for_delivery')
  t.same(await smsPayloadsOf(server, '8', position), [], 'a phone that does not parse gets no SMS payload')
})

t.test('callbacks: a forged one is refused; an undelivered report says why', async (t) => {
  const twilio = await startTwilioLoopback(t)
  const server = await start(t, twilio)
  await tracker(server, '9')
  await push(server, '9', 'out_for_delivery')
  const [sms] = await twilio.waitFor(1)
  await smsPayload(server, '9', 'out_for_delivery')
  const forged = await twilio.report(sms!, 'delivered', { signature: 'bm90IGEgc2lnbmF0dXJl' })
  t.equal(forged.status, 403)
  t.same(await forged.json(), { errors: { details: 'X-Twilio-Signature does not sign this request' } })
  const unsigned = await fetch(sms!.statusCallback!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ MessageSid: sms!.sid, MessageStatus: 'delivered' }),
  })
  t.equal(unsigned.status, 403)
  for (const query of ['', '?account=x', '?account=1&payload=2']) {
    const bare = await fetch(`${server.url}/v1/sms/status${query}`, { method: 'POST' })
    t.equal(bare.status, 403, `unsigned, with the query ${query || 'missing'}: the signature is checked first`)
    t.match(await bare.json(), { errors: { details: /X-Twilio-Signature/ } })
  }
  t.match(await smsPayload(server, '9', 'out_for_delivery'), { status: 'dispatched' }, 'nothing recorded')
  await twilio.report(sms!, 'undelivered', { errorCode: '30003' })
  t.match(await smsPayload(server, '9', 'out_for_delivery', 'dispatched'), {
    status: 'undelivered',
    error: 'the provider reported undelivered (error 30003)',
  })
  const elsewhere = { ...sms!, statusCallback: sms!.statusCallback!.replace(/payload=\d+/, 'payload=1') }
  t.equal((await twilio.report(elsewhere, 'delivered')).status, 404, 'no such payload')
})

t.test('STOP mutes the phone for the account that texted it; START lets texts through again', async (t) => {
  const twilio = await startTwilioLoopback(t)
  const server = await start(t, twilio)
  await tracker(server, '10')
  await push(server, '10', 'out_for_delivery')
  await twilio.waitFor(1)
  await smsPayload(server, '10', 'out_for_delivery')
  const inbound = `${server.url}/v1/sms/inbound`
  t.equal((await twilio.inbound(inbound, PHONE, 'Stop', { signature: 'AAAA' })).status, 403)
  const stopped = await twilio.inbound(inbound, PHONE, ' stop ')
  t.equal(stopped.status, 200)
  t.match(await stopped.text(), '<Response></Response>')
  await push(server, '10', 'delivered', T0 + 60)
  t.match(await smsPayload(server, '10', 'delivered'), { status: 'failed', error: /answered STOP/ })
  t.equal(twilio.messages.length, 1, 'nothing more was sent')

  t.equal((await twilio.inbound(inbound, PHONE, 'START')).status, 200)
  await tracker(server, '11')
  await push(server, '11', 'out_for_delivery')
  await twilio.waitFor(2)
  t.match(await smsPayload(server, '11', 'out_for_delivery'), { status: 'dispatched' })
  t.equal((await twilio.inbound(inbound, '+33700000000', 'STOP')).status, 200, 'a phone never texted changes nothing')
})

t.test('quiet hours: a text due at night waits; the setting is checked', async (t) => {
  const twilio = await startTwilioLoopback(t)
  const server = await start(t, twilio)
  // A window around now in Paris (the order's address is in France).
  const hour = Number(
    new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Paris' }).format(
      new Date(),
    ),
  )
  const at = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`
  const window = { from: at(hour - 1), until: at(hour + 2) }
  const set = await server.request('PATCH', '/v2/account', { body: { sms_quiet_hours: window } })
  t.equal(set.status, 200)
  t.same(set.body.sms_quiet_hours, window)
  await tracker(server, '12')
  const position = await push(server, '12', 'out_for_delivery')
  await queueHolds(server, 'sms', 1)
  t.equal(twilio.requests, 0, 'nothing sent in the quiet hours: the text is held until they end')
  t.match(await smsPayloadsOf(server, '12', position), [{ status: 'built' }], 'held, not lost')
  for (const body of [{ sms_quiet_hours: { from: '25:00', until: '08:00' } }, { sms_quiet_hours: { from: '21:00' } }]) {
    const refused = await server.request('PATCH', '/v2/account', { body })
    t.equal(refused.status, 400)
    t.match(JSON.stringify(refused.body), 'sms_quiet_hours')
  }
})
