import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { type Mailbox, startMailbox } from '../support/smtp.ts'
import { queueDrained, reactionPassed } from '../support/progress.ts'
import { postTrackers, readAfter, startTestServer, type TestServer } from '../support/server.ts'
import { nowSeconds } from '../support/time.ts'

/*
 * Customer e-mails end to end: the real service sending through a real SMTP
 * server on loopback (smtp-server), each message parsed with mailparser.
 */

/** An hour ago: scans days old would make the parcels stalled, and their customers told (docs/estimation.md). */
const T0 = Math.floor(Date.now() / 1000) - 3600
const NOTIFICATIONS = 'expand[]=notifications.notification_payloads&expand[]=notifications.notification_type'

const start = (t: Test, mailbox: Mailbox | undefined, env: Record<string, string> = {}) =>
  startTestServer(t, {
    env: {
      ...(mailbox ? { SMTP_URL: mailbox.url } : {}),
      SHIPLOG_MAIL_FROM: 'Acme <shop@acme.example>',
      SHIPLOG_MAIL_ATTEMPTS: '3',
      SHIPLOG_MAIL_RETRY_DELAY_MS: '200',
      ...env,
    },
  })

async function pushEvent(server: TestServer, trackingNumber: string, eventTypeCode: string, happenedAt = T0) {
  const pushed = await server.request('POST', '/v2/trackers/events', {
    body: { events: [{ tracking_number: trackingNumber, event_type_code: eventTypeCode, happened_at: happenedAt }] },
  })
  if (pushed.status !== 201) throw new Error(JSON.stringify(pushed.body))
  return pushed.headers.get('x-shiplog-position') ?? undefined
}

async function trackerNotifications(server: TestServer, trackingNumber: string, position?: string) {
  const list = await readAfter(server, `/v2/trackers?tracking_number=${trackingNumber}&${NOTIFICATIONS}`, position)
  return list.body.data[0].notifications.data as any[]
}

async function orderNotifications(server: TestServer, orderNumber: string, position?: string) {
  const list = await readAfter(
    server,
    `/v2/orders?order_number=${encodeURIComponent(orderNumber)}&${NOTIFICATIONS}`,
    position,
  )
  return list.body.data[0].notifications.data as any[]
}

/** Polls until the payload's status is no longer `built`. */
async function settledPayload(read: () => Promise<any[]>) {
  for (let i = 0; i < 400; i++) {
    const payload = (await read())[0]?.notification_payloads.data[0]
    if (payload && payload.status !== 'built') return payload
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('the payload stayed built')
}

t.test('order_placed: sent once, in the order language, naming the order and its parcel, HTML escaped', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox)
  const created = await postTrackers(server, [
    {
      order_number: 'A-<1>&2',
      tracking_number: '1Z999AA10123456784',
      carrier_code: 'ups',
      email: 'jane@example.com',
      first_name: 'Jane',
      order_date: nowSeconds(),
    },
  ])
  const [mail] = await mailbox.waitFor(1)
  t.equal(mail!.subject, 'We have received your order A-<1>&2')
  t.match(mail!.to, { text: 'jane@example.com' })
  t.match(mail!.from, { text: /shop@acme\.example/ })
  t.match(mail!.text, /Hello Jane,/)
  t.match(mail!.text, /Tracking number: 1Z999AA10123456784/)
  t.match(mail!.text, /Carrier: UPS/)
  t.match(mail!.text, /https:\/\/www\.ups\.com\/track\?tracknum=1Z999AA10123456784/)
  t.match(mail!.html, /A-&lt;1&gt;&amp;2/, 'the order number is escaped in the HTML')
  t.notMatch(mail!.html, /A-<1>/)
  const [notification] = await orderNotifications(server, 'A-<1>&2', created.position)
  t.match(mail!.messageId, `<notification-payload-${notification.notification_payloads.data[0].id}@acme.example>`)
  const payload = await settledPayload(() => orderNotifications(server, 'A-<1>&2'))
  t.match(payload, { object: 'notification_payload', status: 'dispatched', dispatched: true, error: null })
  await reactionPassed(server, 'emails', created.position!)
  await queueDrained(server, 'emails')
  t.equal(mailbox.messages.length, 1, 'sent once')
})

t.test('the 36-hour rule holds for order_placed only, on both sides of it', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox)
  const created = await postTrackers(server, [
    { order_number: 'OLD', tracking_number: 'TN-OLD', email: 'a@example.com', order_date: nowSeconds() - 37 * 3600 },
    { order_number: 'NEW', tracking_number: 'TN-NEW', email: 'b@example.com', order_date: nowSeconds() - 35 * 3600 },
  ])
  t.same(await orderNotifications(server, 'OLD', created.position), [], 'placed 37 hours ago: no order_placed')
  t.equal((await orderNotifications(server, 'NEW', created.position)).length, 1, 'placed 35 hours ago: built')
  const position = await pushEvent(server, 'TN-OLD', 'transit')
  const [shipped] = await trackerNotifications(server, 'TN-OLD', position)
  t.equal(shipped.notification_type.slug, 'shipped', 'the rule does not hold for the other types')
  const mails = await mailbox.waitFor(2)
  t.same(mails.map((m) => m.to && 'text' in m.to && m.to.text).sort(), ['a@example.com', 'b@example.com'])
})

t.test('each step of the parcel builds its notification once per tracker and sends it', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox)
  const steps = [
    ['transit', 'shipped', 'has shipped'],
    ['out_for_delivery', 'out_for_delivery', 'is out for delivery'],
    ['failed_attempt', 'failed_attempt', 'could not deliver'],
    ['pickup_point', 'available_for_pickup', 'ready for pickup'],
    ['incident', 'exception', 'A problem with the delivery'],
    ['delivered', 'delivered', 'has been delivered'],
    ['return', 'returned', 'on its way back'],
  ] as const
  await postTrackers(
    server,
    steps.map((_, i) => ({ order_number: `S-${i}`, tracking_number: `TN-S${i}`, email: `s${i}@example.com` })),
  )
  for (const [i, [event]] of steps.entries()) await pushEvent(server, `TN-S${i}`, event)
  // The same step again, later: the type is built once per tracker.
  const position = await pushEvent(server, 'TN-S0', 'transit', T0 + 60)
  for (const [i, [, slug]] of steps.entries()) {
    const notifications = await trackerNotifications(server, `TN-S${i}`, position)
    t.same(
      notifications.map((n) => n.notification_type.slug),
      [slug],
      `${slug} once`,
    )
  }
  const mails = await mailbox.waitFor(steps.length * 2)
  for (const [i, [, , subject]] of steps.entries()) {
    const mail = mails.find(
      (m) => m.to && 'text' in m.to && m.to.text === `s${i}@example.com` && !/received/.test(m.subject!),
    )
    t.match(mail?.subject, subject)
  }
})

t.test('a parcel first seen out for delivery is told that, not also that it shipped', async (t) => {
  const server = await start(t, undefined)
  await postTrackers(server, [{ order_number: 'J-1', tracking_number: 'TN-J1', email: 'j@example.com' }])
  await pushEvent(server, 'TN-J1', 'out_for_delivery')
  const position = await pushEvent(server, 'TN-J1', 'delivered', T0 + 3600)
  t.same((await trackerNotifications(server, 'TN-J1', position)).map((n) => n.notification_type.slug).sort(), [
    'delivered',
    'out_for_delivery',
  ])
})

t.test('a muted tracker builds nothing; an order without e-mail gets notifications without payload', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox)
  await postTrackers(server, [
    { order_number: 'M-1', tracking_number: 'TN-M1', email: 'm@example.com', mute_notifications: true },
    { order_number: 'M-2', tracking_number: 'TN-M2a', email: 'n@example.com' },
    { order_number: 'M-2', tracking_number: 'TN-M2b', email: 'n@example.com', mute_notifications: true },
    { order_number: 'N-1', tracking_number: 'TN-N1' },
  ])
  for (const tn of ['TN-M1', 'TN-M2a', 'TN-M2b', 'TN-N1']) await pushEvent(server, tn, 'transit')
  const position = await pushEvent(server, 'TN-N1', 'delivered', T0 + 60)
  t.same(await trackerNotifications(server, 'TN-M2b', position), [], 'a muted tracker')
  t.equal((await trackerNotifications(server, 'TN-M2a', position)).length, 1, 'its sibling is not muted')
  const noEmail = await trackerNotifications(server, 'TN-N1', position)
  t.same(
    noEmail.map((n) => [n.notification_type.slug, n.notification_payloads.data.length]),
    [
      ['delivered', 0],
      ['shipped', 0],
    ],
    'newest first, without payloads',
  )
  await mailbox.waitFor(3)
  await reactionPassed(server, 'emails', position!)
  await queueDrained(server, 'emails')
  t.same(
    mailbox.messages.map((m) => m.subject).sort(),
    ['We have received your order M-1', 'We have received your order M-2', 'Your order M-2 has shipped'],
    "a tracker's mute holds for that tracker: its order is still told it was received",
  )
})

t.test('French customers get French e-mails; the account can turn a type off', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox)
  const types = await server.request('GET', '/v2/notification_types')
  t.equal(types.body.data.length, 9)
  t.match(types.body.data[0], { object: 'notification_type', slug: 'order_placed', enabled: true })
  const off = await server.request('PATCH', '/v2/notification_types/order_placed', { body: { enabled: false } })
  t.match(off, { status: 200, body: { slug: 'order_placed', enabled: false } })
  t.equal((await server.request('PATCH', '/v2/notification_types/nope', { body: { enabled: false } })).status, 400)
  t.equal((await server.request('PATCH', '/v2/notification_types/shipped', { body: { enabled: 'no' } })).status, 400)
  await postTrackers(server, [
    {
      order_number: 'F-1',
      tracking_number: 'TN-F1',
      carrier_code: 'colissimo',
      email: 'f@example.fr',
      language_code: 'fr',
    },
  ])
  await pushEvent(server, 'TN-F1', 'transit')
  const [mail] = await mailbox.waitFor(1)
  t.equal(mail!.subject, 'Votre commande F-1 a été expédiée', 'no order_placed: turned off; shipped in French')
  t.match(mail!.text, 'Numéro de suivi\u00a0: TN-F1')
  t.match(mail!.text, 'Transporteur\u00a0: Colissimo', 'a French colon after a no-break space')
  const back = await server.request('PATCH', '/v2/notification_types/order_placed', { body: { enabled: true } })
  t.equal(back.body.enabled, true)
})

t.test('an SMTP failure is retried; when every attempt fails the payload is failed with the error', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox)
  mailbox.refuseNext = 1
  await postTrackers(server, [{ order_number: 'R-1', tracking_number: 'TN-R1', email: 'r@example.com' }])
  await mailbox.waitFor(1)
  t.match(await settledPayload(() => orderNotifications(server, 'R-1')), { status: 'dispatched', dispatched: true })

  mailbox.refuseAll = true
  await postTrackers(server, [{ order_number: 'R-2', tracking_number: 'TN-R2', email: 'r2@example.com' }])
  const failed = await settledPayload(() => orderNotifications(server, 'R-2'))
  t.match(failed, { status: 'failed', dispatched: false, error: /451|busy/ })
})

t.test('without SMTP_URL payloads stay built; a preview shows what the customer gets', async (t) => {
  const server = await start(t, undefined)
  const created = await postTrackers(server, [
    { order_number: 'P-1', tracking_number: 'TN-P1', carrier_code: 'dhl', email: 'p@example.com', language_code: 'fr' },
  ])
  const [notification] = await orderNotifications(server, 'P-1', created.position)
  t.equal(notification.notification_payloads.data[0].status, 'built', 'no e-mail reaction runs without SMTP_URL')
  const preview = await server.request('GET', `/v2/notifications/${notification.id}/preview`)
  t.equal(preview.status, 200)
  t.match(preview.body, {
    object: 'notification_preview',
    notification_id: notification.id,
    notification_type: 'order_placed',
    to: 'p@example.com',
    subject: 'Nous avons bien reçu votre commande P-1',
    text: /TN-P1/,
    html: /<html lang="fr">/,
  })
  const other = await server.newAccount()
  t.equal(
    (await server.request('GET', `/v2/notifications/${notification.id}/preview`, { key: other.private_key })).status,
    404,
    "another account's notification is not found",
  )
  t.equal((await server.request('GET', '/v2/notifications/123/preview')).status, 404)
})

t.test('no e-mail is sent twice across a restart', async (t) => {
  const mailbox = await startMailbox(t)
  const dataDir = mkdtempSync(join(tmpdir(), 'shiplog-mail-'))
  const env = { QUEUE_NAME: `mail-${randomUUID()}` }
  const first = await startTestServer(t, {
    dataDir,
    env: { SMTP_URL: mailbox.url, ...env },
  })
  await postTrackers(first, [{ order_number: 'D-1', tracking_number: 'TN-D1', email: 'd@example.com' }])
  await mailbox.waitFor(1)
  await settledPayload(() => orderNotifications(first, 'D-1'))
  await first.close()
  const second = await startTestServer(t, { dataDir, env: { SMTP_URL: mailbox.url, ...env } })
  await reactionPassed(second, 'emails', await second.runtime.eventStore.head())
  await queueDrained(second, 'emails')
  t.equal(mailbox.messages.length, 1, 'the restarted service sent nothing again')
})

t.test('an order muted through POST /v2/orders builds nothing, for the order nor its trackers', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox)
  const order = {
    merchant_id: 'MUTED',
    email: 'muted@example.com',
    mute_notifications: true,
    fulfillments: [{ merchant_id: 'F', trackers: [{ tracking_number: 'TN-MUTED' }] }],
  }
  const created = await server.request('POST', '/v2/orders', { body: order })
  t.equal(created.status, 201)
  t.same(created.body.notifications.data, [], 'no order_placed')
  const position = await pushEvent(server, 'TN-MUTED', 'delivered')
  t.same(await trackerNotifications(server, 'TN-MUTED', position), [], 'no delivered')
  await reactionPassed(server, 'emails', position!)
  await queueDrained(server, 'emails')
  t.equal(mailbox.messages.length, 0)
})

t.test('with a public address, the e-mail carries the brand and its button opens the tracking page', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await start(t, mailbox, { SHIPLOG_PUBLIC_URL: 'https://track.shop.example/' })
  const branded = await server.request('PATCH', '/v2/tracking_page', {
    body: { brand_name: 'Atelier Lumière', primary_color: '#ffd700' },
  })
  t.equal(branded.status, 200)
  const created = await postTrackers(server, [
    {
      order_number: 'B-77',
      tracking_number: '1Z999AA10123456784',
      carrier_code: 'ups',
      email: 'jane@example.com',
      order_date: nowSeconds(),
    },
  ])
  const [mail] = await mailbox.waitFor(1)
  const link = await readAfter(
    server,
    `/v2/orders/${created.body.trackers[0].order_id}/tracking_link`,
    created.position,
  )
  t.equal(link.body.url, `https://track.shop.example/track/${link.body.token}`, 'made with SHIPLOG_PUBLIC_URL')
  t.match(mail!.text, /^Atelier Lumière\n/, 'the brand name first')
  t.match(mail!.text, `Track your parcel: ${link.body.url}`)
  t.notMatch(mail!.text, 'www.ups.com', 'the tracking page, not the carrier’s')
  t.match(mail!.html, `href="${link.body.url}" style="background: #ffd700; color: #000000;`)
  const page = await fetch(`${server.url}/track/${link.body.token}`)
  t.equal(page.status, 200, 'the link opens the order’s page')
})
