import t from 'tap'
import { createUser } from '../../commands/users/change-user.ts'
import { until } from '../support/progress.ts'
import { startReceiver } from '../support/receiver.ts'
import { startMailbox } from '../support/smtp.ts'
import { SHOPIFY_TOKEN, startLoopbackStore } from '../support/stores.ts'
import { waitForJob } from '../support/jobs.ts'
import { csrfOf, get, jar, PASSWORD, post, signedIn, signIn } from '../support/console.ts'
import { postTrackers, recordTrackingEvents, startTestServer, trackerOf } from '../support/server.ts'
import { DAY, isoDay, nowSeconds } from '../support/time.ts'

/*
 * The console over HTTP, as a browser would use it without script: sign-in,
 * the session cookie and its flags, CSRF on every form, rate limiting, and
 * an account's pages closed to another account's user.
 */

t.test('sign in, the session cookie, sign out; wrong credentials get one message', async (t) => {
  const server = await startTestServer(t)
  await createUser(server.runtime, {
    accountId: server.accountId,
    email: 'Ada@Example.com',
    role: 'owner',
    password: PASSWORD,
  })
  const cookies = jar()

  const away = await get(server, '/console', cookies)
  t.equal(away.status, 303)
  t.equal(away.location, '/console/login?next=%2Fconsole')
  const login = await get(server, '/console/login', cookies)
  t.match(login.html, /name="email"[^>]*autocomplete="username"/)
  t.match(login.html, /name="password"/)

  const wrongPassword = await signIn(server, cookies, 'ada@example.com', 'not the password')
  const wrongEmail = await signIn(server, cookies, 'nobody@example.com')
  t.equal(wrongPassword.status, 401)
  t.equal(wrongEmail.status, 401)
  t.match(wrongPassword.html, 'Wrong e-mail or password.')
  t.match(wrongEmail.html, 'Wrong e-mail or password.', 'the same message, whichever was wrong')

  const signedIn = await signIn(server, cookies, 'ada@example.com')
  t.equal(signedIn.status, 303)
  t.equal(signedIn.location, '/console/parcels', 'back where the user was going')
  const cookie = signedIn.response.headers.getSetCookie().find((c) => c.startsWith('shiplog_console='))!
  t.match(cookie, /HttpOnly/i)
  t.match(cookie, /SameSite=Lax/i)
  t.match(cookie, /Path=\/console/)
  t.notMatch(cookie, /Secure/, 'not Secure over plain http')

  const parcels = await get(server, '/console/parcels', cookies)
  t.equal(parcels.status, 200)
  t.match(parcels.response.headers.get('content-security-policy'), "default-src 'none'")

  // An altered cookie signs nobody in.
  const tampered = jar()
  const value = cookies.cookies.get('shiplog_console')!
  tampered.cookies.set(
    'shiplog_console',
    value.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
  )
  t.equal((await get(server, '/console/parcels', tampered)).status, 303, 'an altered cookie signs out')

  const stolen = cookies.cookies.get('shiplog_console')!
  const out = await post(server, '/console/logout', cookies, { _csrf: csrfOf(parcels.html) })
  t.equal(out.status, 303)
  const replayed = jar()
  replayed.cookies.set('shiplog_console', stolen)
  t.equal((await get(server, '/console/parcels', replayed)).status, 303, 'a session ends on sign-out, copies too')
})

t.test('a form without its CSRF token is refused and changes nothing', async (t) => {
  const server = await startTestServer(t)
  await createUser(server.runtime, {
    accountId: server.accountId,
    email: 'ada@example.com',
    role: 'member',
    password: PASSWORD,
  })
  const cookies = jar()
  const noToken = await post(server, '/console/login', cookies, { email: 'ada@example.com', password: PASSWORD })
  t.equal(noToken.status, 403)
  t.notOk(cookies.cookies.has('shiplog_console'), 'no session')
  await signIn(server, cookies, 'ada@example.com')
  const created = await postTrackers(server, [{ order_number: 'C-1', tracking_number: 'TN-C1', carrier_code: 'ups' }])
  const orderId = created.body.trackers[0].order_id
  const before = await server.request('GET', `/v2/orders/${orderId}/tracking_link`)
  const refused = await post(server, `/console/orders/${orderId}/tracking_link/rotate`, cookies, {})
  t.equal(refused.status, 403)
  t.match(refused.html, 'nothing was changed')
  const after = await server.request('GET', `/v2/orders/${orderId}/tracking_link`)
  t.equal(after.body.token, before.body.token, 'the link did not change')
  const page = await get(server, `/console/orders/${orderId}`, cookies)
  const rotated = await post(server, `/console/orders/${orderId}/tracking_link/rotate`, cookies, {
    _csrf: csrfOf(page.html),
  })
  t.equal(rotated.status, 303)
  const moved = await server.request('GET', `/v2/orders/${orderId}/tracking_link`)
  t.not(moved.body.token, before.body.token, 'with its token, the link moved')
})

t.test(
  'an order page: its items, where they go, its silences, five events before "Show all", messages in words',
  async (t) => {
    const server = await startTestServer(t, { env: { SHIPLOG_PUBLIC_URL: 'https://track.example' } })
    const created = await server.request('POST', '/v2/orders', {
      body: {
        merchant_id: 'shop-9',
        order_number: 'W-9',
        email: 'camille@example.com',
        first_name: 'Camille',
        shipping_address: {
          first_name: 'Camille',
          last_name: 'Martin',
          company_title: 'Atelier Martin',
          address1: '1 rue de la Paix',
          zip: '75002',
          city: 'Paris',
          country_code: 'FR',
        },
        line_items: [
          { merchant_id: 'L1', sku: 'MUG-350', title: 'Blue mug', variant_title: '350 ml', quantity: 2 },
          { merchant_id: 'L2', name: 'Gift card' },
        ],
        fulfillments: [
          {
            merchant_id: 'F-9',
            trackers: [{ tracking_number: '6A1928374650', carrier_code: 'colissimo' }],
          },
        ],
      },
    })
    t.equal(created.status, 201)
    // Seven scans: one a day from 20 days ago to 16, then a week without one, then 9 and 8 days ago.
    const now = nowSeconds()
    const scans = [20, 19, 18, 17, 16, 9, 8].map((daysAgo) => ({
      tracking_number: '6A1928374650',
      event_type_code: 'transit',
      happened_at: now - daysAgo * DAY,
      message: `Scan of ${daysAgo} days ago`,
      address: { city: 'Lyon', country_code: 'FR' },
    }))
    t.equal((await recordTrackingEvents(server, scans)).status, 201)
    const cookies = await signedIn(server)

    // The order_placed notification is made once the order is projected: the page shows it when it is.
    const page = await until(
      () => get(server, `/console/orders/${created.body.id}`, cookies),
      (p) => p.html.includes('Order placed'),
    )
    const { html } = page
    t.equal(page.status, 200)
    t.match(
      html,
      /<details class="confirm">\s*<summary>Rotate link…<\/summary>[\s\S]*Every earlier link to it stops working[\s\S]*>Rotate the link of order [^<]+<\/button>/,
      'the button that rotates names the order, after the consequence',
    )

    t.match(
      html,
      /<td>Blue mug <span class="muted">350 ml<\/span><\/td><td class="mono">MUG-350<\/td><td class="num">2<\/td>/,
    )
    t.match(
      html,
      /<td>Gift card<\/td><td class="mono">–<\/td><td class="num">–<\/td>/,
      'an item without SKU or quantity',
    )
    t.match(
      html,
      '<address>Camille Martin<br>Atelier Martin<br>1 rue de la Paix<br>75002 Paris<br>France</address>',
      'the address as a label',
    )

    const rows = [...html.matchAll(/<li( class="quiet")?>(.*?)<\/li>/g)].map(([, quiet, text]) =>
      quiet ? text! : /Scan of (\d+) days ago/.exec(text!)![1]!,
    )
    t.same(
      rows,
      ['No scan for 8 days', '8', '9', 'No scan for 7 days', '16', '17', '18', '19', '20'],
      'newest first, a row for each silence longer than the stall threshold (3 days)',
    )
    const [shown, more] = html.split('<details class="more-events">')
    t.equal([...shown!.matchAll(/Scan of/g)].length, 5, 'five events shown')
    t.match(more, /<summary>Show all 7<\/summary>/)
    t.equal([...more!.matchAll(/Scan of/g)].length, 2, 'the other two behind "Show all 7"')

    t.match(html, /<td>Order placed<\/td><td>[^<]+<\/td><td>E-mail: (waiting to be sent|sent)<\/td>/)
    t.notMatch(html, 'order_placed</td>', 'the type in words, not its slug')
  },
)

t.test('the parcels listed, exported as CSV: every page of them, under the same filters', async (t) => {
  const server = await startTestServer(t)
  // 60 UPS parcels (more than a page of 50), one DHL parcel whose order number a spreadsheet would run.
  const ups = Array.from({ length: 60 }, (_, i) => ({
    order_number: `E-${i}`,
    tracking_number: `1ZEXPORT${String(i).padStart(4, '0')}`,
    carrier_code: 'ups',
    first_name: 'Jo',
    email: `jo${i}@example.com`,
  }))
  const dhl = {
    order_number: '=HYPERLINK("http://evil.example")',
    tracking_number: 'JD0146000099',
    carrier_code: 'dhl',
    address_city: 'Berlin',
    address_country: 'DE',
  }
  t.equal((await postTrackers(server, [...ups, dhl])).status, 201)
  const cookies = await signedIn(server)

  const page = await get(server, '/console/parcels?carrier=ups', cookies)
  t.match(page.html, 'href="/console/parcels.csv?carrier&#x3D;ups"', 'the page links to its own export')

  const all = await get(server, '/console/parcels.csv', cookies)
  t.equal(all.status, 200)
  t.equal(all.response.headers.get('content-type'), 'text/csv; charset=utf-8')
  t.match(all.response.headers.get('content-disposition'), /^attachment; filename="parcels-\d{4}-\d{2}-\d{2}\.csv"$/)
  const lines = all.html.trimEnd().split('\n')
  t.equal(
    lines[0],
    'order_number,tracking_number,carrier,service,status,delay,customer,email,city,country_code,shipped_at,expected_delivery_date,delivered_at,days_in_transit,last_event,last_event_place,last_event_at',
  )
  t.equal(lines.length, 1 + 61, 'every parcel, past the first page')
  t.match(
    lines[1],
    /^"'=HYPERLINK\(""http:\/\/evil.example""\)",JD0146000099,DHL,,pending,,,,Berlin,DE,/,
    'a formula is not run',
  )
  t.equal(new Set(lines.slice(1).map((l) => l.split(',')[1])).size, 61, 'each parcel once')

  const filtered = await get(server, '/console/parcels.csv?carrier=dhl', cookies)
  t.equal(filtered.html.trimEnd().split('\n').length, 2, 'the filters apply')
  const none = await get(server, '/console/parcels.csv?carrier=colissimo', cookies)
  t.equal(none.html, `${lines[0]}\n`, 'nothing matching: the header alone')
  const signedOut = await get(server, '/console/parcels.csv', jar())
  t.equal(signedOut.status, 303, 'signed out: to the sign-in page')
})

t.test(
  'a delay marked handled with what was done and a note; a wrong outcome or a long note changes nothing',
  async (t) => {
    const server = await startTestServer(t, { env: { SHIPLOG_DELAY_SWEEP_INTERVAL: '1' } })
    const created = await postTrackers(server, [
      {
        order_number: 'L-1',
        tracking_number: 'TN-LATE',
        carrier_code: 'ups',
        expected_delivery_at: `${isoDay(nowSeconds() - 4 * DAY)}T12:00:00Z`,
      },
      {
        order_number: 'L-2',
        tracking_number: 'TN-LATE-DE',
        carrier_code: 'dhl',
        address_city: 'Berlin',
        address_country: 'DE',
        expected_delivery_at: `${isoDay(nowSeconds() - 4 * DAY)}T12:00:00Z`,
      },
    ])
    const tracker = await until(
      () => trackerOf(server, 'TN-LATE', created.position),
      (tr) => tr.delay?.status === 'late',
    )
    await until(
      () => trackerOf(server, 'TN-LATE-DE'),
      (tr) => tr.delay?.status === 'late',
    )
    const cookies = await signedIn(server)
    const listed = async (query: string) => {
      const { html } = await get(server, `/console/delays${query}`, cookies)
      return { html, orders: [...html.matchAll(/>(L-\d)<\/a>/g)].map(([, n]) => n).sort() }
    }
    t.same((await listed('')).orders, ['L-1', 'L-2'])
    t.same((await listed('?carrier=UPS')).orders, ['L-1'], 'by carrier, whatever its case')
    t.same((await listed('?country=de')).orders, ['L-2'], 'by destination country')
    t.same((await listed(`?since=${isoDay(nowSeconds() - 30 * DAY)}&reason=promise_passed`)).orders, ['L-1', 'L-2'])
    const none = await listed('?reason=no_scan')
    t.same(none.orders, [], 'by reason')
    t.match(none.html, 'No delay matches these filters.')
    t.same((await listed(`?since=${isoDay(nowSeconds() + DAY)}`)).orders, [], 'flagged since a day to come')
    t.same(
      (await listed('?reason=bogus&country=Germany&since=yesterday')).orders,
      ['L-1', 'L-2'],
      'unknown values ignored',
    )
    t.match(
      (await listed('')).html,
      /<summary>Why flagged\?<\/summary><p>Late: the day promised for it has ended where it is going, and it is not delivered\.<\/p>/,
    )
    const delays = await get(server, '/console/delays', cookies)
    t.match(delays.html, /<select id="outcome-\d+" name="outcome">/, 'an outcome to choose')
    const handle = (form: Record<string, string>) =>
      post(server, `/console/delays/${tracker.id}/handled`, cookies, { _csrf: csrfOf(delays.html), ...form })

    const wrong = await handle({ outcome: 'bribed' })
    t.equal(wrong.status, 400)
    t.match(wrong.html, 'outcome must be one of contacted, reshipped, refunded, claim')
    const long = await handle({ outcome: 'claim', note: 'x'.repeat(501) })
    t.equal(long.status, 400)
    t.match(long.html, 'note must be at most 500 characters')
    t.match((await get(server, '/console/delays', cookies)).html, 'Mark handled', 'still open')

    t.notMatch((await listed('')).html, 'flag-reopened', 'none reopened before it was handled')
    const done = await handle({ outcome: 'claim', note: 'Claim <42> filed with UPS' })
    t.equal(done.status, 303)
    const handled = await get(server, '/console/delays?handled=1', cookies)
    t.match(
      handled.html,
      /Handled by sam@shop.example, [^<]+ · Claim filed<\/span><br><q class="note">Claim &lt;42&gt; filed with UPS<\/q>/,
    )
    const order = await get(server, `/console/orders/${created.body.trackers[0].order_id}`, cookies)
    t.match(order.html, 'Claim filed', 'the order page says so too')

    // Undo: the delay is open again, with nothing of the handling left.
    const undone = await post(server, `/console/delays/${tracker.id}/reopen`, cookies, { _csrf: csrfOf(handled.html) })
    t.equal(undone.status, 303)
    t.match(decodeURIComponent(undone.location ?? ''), 'Open again.')
    const reopened = (await listed('')).html
    t.notMatch(reopened, 'Handled by')
    t.equal(
      (reopened.match(/class="flag flag-reopened">Reopened</g) ?? []).length,
      1,
      'the undone one labelled Reopened',
    )
    t.equal((reopened.match(/Mark handled<\/button>/g) ?? []).length, 2, 'both delays open')
    const again = await post(server, `/console/delays/${tracker.id}/reopen`, cookies, { _csrf: csrfOf(handled.html) })
    t.equal(again.status, 303, 'undoing twice changes nothing more')
  },
)

t.test(
  'the overview: integrations OK, then an endpoint being retried, then one given up on; last 7 days',
  async (t) => {
    for (const [schedule, words] of [
      ['60,60', /Webhooks to http:\/\/127\.0\.0\.1:\d+\/hooks are failing and being retried: it answered 503\./],
      [
        '1,1',
        /A webhook message of [^<]+ to http:\/\/127\.0\.0\.1:\d+\/hooks was given up on after its retries: it answered 503\./,
      ],
    ] as const) {
      const server = await startTestServer(t, {
        env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true', SHIPLOG_WEBHOOK_RETRY_SCHEDULE: schedule },
      })
      const cookies = await signedIn(server)
      const healthy = (await get(server, '/console', cookies)).html
      t.match(healthy, /All integrations OK, checked \d+ \w+, \d\d:\d\d\./)
      t.match(healthy, 'No parcel was delivered in the last 7 days.')

      const receiver = await startReceiver(t)
      receiver.fallback = 503
      const endpoint = await server.request('POST', '/v2/webhook_endpoints', {
        body: { url: receiver.url, enabled_events: ['order.created'] },
      })
      t.equal(endpoint.status, 201)
      await postTrackers(server, [{ order_number: 'H-1', tracking_number: 'TN-H1', carrier_code: 'dhl' }])
      const overview = await until(
        () => get(server, '/console', cookies),
        (page) => words.test(page.html),
      )
      t.match(overview.html, `<a href="/console/webhooks/${endpoint.body.id}">`, 'the line leads to the endpoint')
      const list = (await get(server, '/console/webhooks', cookies)).html
      t.match(
        list,
        /<span class="failing">Failing since \d+ \w+, \d\d:\d\d<\/span><\/td><td class="nowrap">0 % of 1 taken<\/td>/,
        'the endpoints list says it fails, since when, and what it took in a day',
      )
      t.notMatch(overview.html, 'All integrations OK')
    }
  },
)

t.test('an empty account is shown its first steps; the snippet it gives works as written', async (t) => {
  const server = await startTestServer(t)
  const cookies = await signedIn(server)
  const { html } = await get(server, '/console', cookies)
  t.match(html, '<h2 id="setup">Getting started</h2>')
  t.match(html, /<li class="done"><span class="state">Done<\/span> <strong>An API key\.<\/strong>/)
  t.match(
    html,
    /<li><span class="state">To do<\/span> <strong>A carrier tracking API\.<\/strong>/,
    'none configured here',
  )
  t.match(html, /<li><span class="state">To do<\/span> <strong>Your tracking page\.<\/strong>/)
  const snippet = /<pre class="snippet"[^>]*><code>([\s\S]*?)<\/code><\/pre>/.exec(html)![1]!
  t.match(snippet, `curl -X POST ${server.url}/v1/trackers`, 'to this service')
  // The body as the page gives it, sent as the curl would send it.
  const body = /-d '([\s\S]*)'/.exec(snippet)![1]!
  t.equal((await server.request('POST', '/v1/trackers', { body: JSON.parse(body) })).status, 201)
  const after = await until(
    () => get(server, '/console', cookies),
    (page) => !page.html.includes('Getting started'),
  )
  t.match(after.html, 'Needs attention', 'with a parcel, the usual overview')
})

t.test(
  'the account’s time zone: chosen in settings, named on every page, its times and days shown in it',
  async (t) => {
    const server = await startTestServer(t)
    const created = await postTrackers(server, [{ order_number: 'Z-1', tracking_number: 'TN-ZONE' }])
    const orderId = created.body.trackers[0].order_id
    const cookies = await signedIn(server, 'ana@shop.example', 'owner')
    t.equal((await get(server, '/console/settings', cookies)).location, '/console/settings/account')
    const form = await get(server, '/console/settings/account', cookies)
    t.match(form.html, '<option value="UTC" selected>UTC</option>')
    t.match(form.html, '<optgroup label="Asia">', 'zones grouped by region')
    t.match(form.html, 'Times in UTC.')

    const wrong = await post(server, '/console/settings/account', cookies, {
      _csrf: csrfOf(form.html),
      time_zone: 'Asia/Atlantis',
    })
    t.equal(wrong.status, 400)
    t.match(wrong.html, 'time_zone: must be an IANA time zone such as Europe/Paris')
    const saved = await post(server, '/console/settings/account', cookies, {
      _csrf: csrfOf(form.html),
      time_zone: 'Asia/Tokyo',
    })
    t.equal(saved.status, 303)
    t.match(decodeURIComponent(saved.location ?? ''), 'Times are now in Asia/Tokyo.')
    t.match((await server.request('GET', '/v2/account')).body, { time_zone: 'Asia/Tokyo' }, 'the API reads it too')

    const order = (await get(server, `/console/orders/${orderId}`, cookies)).html
    t.match(order, 'Times in Asia/Tokyo.')
    const { created_at } = (await server.request('GET', `/v2/orders/${orderId}`)).body
    const inTokyo = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Asia/Tokyo',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
    }).format(created_at * 1000)
    t.match(order, `<td>Order placed</td><td>${inTokyo}</td>`, 'the notification’s time as it was in Tokyo')
    t.match((await get(server, '/console/parcels', cookies)).html, 'Times in Asia/Tokyo.')
    t.match((await get(server, '/console', cookies)).html, 'Times in Asia/Tokyo.')
  },
)

t.test('a notification sent again from the order page: the channel chosen, the order’s contacts', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await startTestServer(t, { env: { SMTP_URL: mailbox.url, SHIPLOG_MAIL_FROM: 'shop@acme.example' } })
  const created = await postTrackers(server, [
    {
      order_number: 'N-1',
      tracking_number: 'TN-RESEND',
      carrier_code: 'ups',
      email: 'jane@example.com',
      phone: '+33612345678',
    },
  ])
  await recordTrackingEvents(server, [
    { tracking_number: 'TN-RESEND', event_type_code: 'origin_scan', happened_at: nowSeconds() - 600 },
  ])
  const first = await mailbox.waitFor(2)
  const shippedSubject = first.find((m) => !m.subject?.startsWith('We have received'))!.subject
  const orderId = created.body.trackers[0].order_id
  const cookies = await signedIn(server)
  const page = (await get(server, `/console/orders/${orderId}`, cookies)).html
  t.match(
    page,
    /<dt>Customer told<\/dt><dd>Shipped, [^<]+<br><span class="muted">E-mail: (sent|waiting to be sent)<\/span><\/dd>/,
    'what the customer was told last, above the timeline',
  )
  t.match(page, '<summary>Resend a notification…</summary>')
  t.match(page, '<label for="resend-', 'each choice labelled')
  t.match(page, 'By e-mail to jane@example.com')
  t.notMatch(page, 'By SMS to', 'no SMS without a provider')
  const shipped = /<option value="(\d+)">Shipped<\/option>/.exec(page)?.[1]
  t.ok(shipped, 'the shipped notification is offered')
  t.match(page, /<option value="\d+">Order placed<\/option>/, 'and the order’s own')

  const resend = (form: Record<string, string>) =>
    post(server, `/console/orders/${orderId}/notifications/resend`, cookies, { _csrf: csrfOf(page), ...form })
  const bySms = await resend({ notification: shipped!, channel: 'sms' })
  t.equal(bySms.status, 400)
  t.match(bySms.html, 'channel: SMS needs a provider; set TWILIO_ACCOUNT_SID')
  t.equal((await resend({ notification: '1', channel: 'email' })).status, 400, 'another order’s notification')
  t.equal((await resend({ notification: shipped!, channel: 'pigeon' })).status, 400)

  const sent = await resend({ notification: shipped!, channel: 'email' })
  t.equal(sent.status, 303)
  t.match(decodeURIComponent(sent.location ?? ''), 'Shipped is being sent again by e-mail to jane@example.com.')
  const all = await mailbox.waitFor(3)
  t.equal(all.filter((m) => m.subject === shippedSubject).length, 2, 'the customer got the shipped e-mail again')
  t.equal(all.length, 3, 'and nothing else')
  const after = (await get(server, `/console/orders/${orderId}`, cookies)).html
  t.equal((after.match(/<td>Shipped<\/td>/g) ?? []).length, 2, 'the order page lists both')
})

t.test('the notifications matrix tells what each type sent on each channel this week', async (t) => {
  const mailbox = await startMailbox(t)
  const server = await startTestServer(t, {
    env: { SMTP_URL: mailbox.url, SHIPLOG_MAIL_FROM: 'shop@acme.example', SHIPLOG_MAIL_ATTEMPTS: '1' },
  })
  const cookies = await signedIn(server)
  const cellsOf = (html: string, type: string) =>
    new RegExp(`<th scope="row">${type}<br>[\\s\\S]*?</tr>`).exec(html)?.[0] ?? ''
  t.match(cellsOf((await get(server, '/console/notifications', cookies)).html, 'Order placed'), 'none sent')

  await postTrackers(server, [
    { order_number: 'M-1', tracking_number: 'TN-M1', carrier_code: 'ups', email: 'a@example.com' },
    { order_number: 'M-2', tracking_number: 'TN-M2', carrier_code: 'ups', email: 'b@example.com' },
  ])
  await mailbox.waitFor(2)
  mailbox.refuseAll = true
  await postTrackers(server, [
    { order_number: 'M-3', tracking_number: 'TN-M3', carrier_code: 'ups', email: 'c@example.com' },
  ])
  const page = await until(
    () => get(server, '/console/notifications', cookies),
    (p) => cellsOf(p.html, 'Order placed').includes('failed'),
  )
  const row = cellsOf(page.html, 'Order placed')
  t.match(
    row,
    '<span class="sends">2 sent, <span class="failing">1 failed</span></span>',
    'the e-mails taken and refused',
  )
  t.match(row, /aria-label="Order placed: SMS"[^>]*>\s*<span class="sends">none sent<\/span>/, 'no SMS')
  t.match(cellsOf(page.html, 'Delivered'), 'none sent')
  t.match(page.html, 'Beside each channel: its messages of the last 7 days.')
})

t.test('the overview names e-mails to customers that failed this week, and the order of the newest', async (t) => {
  const mailbox = await startMailbox(t)
  mailbox.refuseAll = true
  const server = await startTestServer(t, {
    env: { SMTP_URL: mailbox.url, SHIPLOG_MAIL_FROM: 'shop@acme.example', SHIPLOG_MAIL_ATTEMPTS: '1' },
  })
  const cookies = await signedIn(server)
  t.match((await get(server, '/console', cookies)).html, 'All integrations OK')
  const created = await postTrackers(server, [
    { order_number: 'F-1', tracking_number: 'TN-F1', carrier_code: 'ups', email: 'jane@example.com' },
  ])
  const overview = await until(
    async () => (await get(server, '/console', cookies)).html,
    (html) => html.includes('to customers failed this week'),
  )
  t.match(
    overview,
    new RegExp(
      `<a href="/console/orders/${created.body.trackers[0].order_id}">1 e-mail to customers failed this week; the newest, of [^<]+, for order F-1: Message failed: [^<]+\\.</a>`,
    ),
  )
  t.notMatch(overview, 'All integrations OK')
})

t.test(
  'the parcels page’s tabs: active by default, each with its count, paged newest first across statuses',
  async (t) => {
    const server = await startTestServer(t)
    // 30 parcels in transit and 30 met an exception, interleaved; one delivered, one returned.
    const parcels = Array.from({ length: 60 }, (_, i) => ({ order_number: `T-${i}`, tracking_number: `TN-TAB-${i}` }))
    const ends = [
      { order_number: 'T-D', tracking_number: 'TN-TAB-D' },
      { order_number: 'T-R', tracking_number: 'TN-TAB-R' },
    ]
    t.equal((await postTrackers(server, [...parcels, ...ends])).status, 201)
    const at = nowSeconds() - 600
    await recordTrackingEvents(server, [
      ...parcels.map((p, i) => ({
        tracking_number: p.tracking_number,
        event_type_code: i % 2 === 0 ? 'origin_scan' : 'incident',
        happened_at: at,
      })),
      { tracking_number: 'TN-TAB-D', event_type_code: 'delivered', happened_at: at },
      { tracking_number: 'TN-TAB-R', event_type_code: 'return', happened_at: at },
    ])
    const cookies = await signedIn(server)
    const numbers = (html: string) => [...html.matchAll(/>(T-[\dDR]+)<\/a>/g)].map(([, n]) => n!)
    const tabs = (html: string) =>
      [
        ...html.matchAll(/<a href="[^"]*"(?: aria-current="page")?>([^<]+) <span class="tab-count">([^<]+)<\/span>/g),
      ].map(([, label, count]) => `${label} ${count}`)

    const first = await get(server, '/console/parcels', cookies)
    t.same(tabs(first.html), ['Active 60', 'Needs attention 30', 'Delivered 1', 'Closed 1', 'All 62'])
    t.match(first.html, /aria-current="page">Active /, 'Active is the default')
    const page1 = numbers(first.html)
    t.equal(page1.length, 50, 'a page of 50')
    t.same(
      page1,
      [...page1].sort((a, b) => Number(b.slice(2)) - Number(a.slice(2))),
      'newest first, whatever the status',
    )
    t.notOk(page1.includes('T-D') || page1.includes('T-R'), 'no delivered or returned parcel is active')
    const older = /href="(\/console\/parcels\?[^"]*before[^"]*)" rel="next"/
      .exec(first.html)?.[1]
      ?.replaceAll('&#x3D;', '=')
    t.ok(older, 'a next page')
    const page2 = numbers((await get(server, older!, cookies)).html)
    t.equal(new Set([...page1, ...page2]).size, 60, 'every active parcel once over two pages')

    t.same(numbers((await get(server, '/console/parcels?view=delivered', cookies)).html), ['T-D'])
    t.same(numbers((await get(server, '/console/parcels?view=closed', cookies)).html), ['T-R'])
    t.equal(numbers((await get(server, '/console/parcels?view=attention', cookies)).html).length, 30)
    const narrowed = await get(server, '/console/parcels?view=attention&status=in_transit', cookies)
    t.same(numbers(narrowed.html), [], 'a status outside the tab: nothing')
    t.same(
      tabs(narrowed.html),
      ['Active 30', 'Needs attention 0', 'Delivered 0', 'Closed 0', 'All 30'],
      'counts under the filters',
    )
    t.match(narrowed.html, '<input type="hidden" name="view" value="attention">', 'filtering keeps the tab')
    const csv = await get(server, '/console/parcels.csv?view=closed', cookies)
    t.equal(csv.html.trimEnd().split('\n').length, 2, 'the export of a tab')
  },
)

t.test('store connections: listed with their webhook address, synced since a day, disconnected', async (t) => {
  const store = await startLoopbackStore(t)
  const server = await startTestServer(t, {
    env: { SHIPLOG_CONNECTOR_ALLOW_PRIVATE: 'true', SHIPLOG_SHOPIFY_API_URL: store.url },
  })
  const owner = await signedIn(server, 'ana@shop.example', 'owner')
  t.match((await get(server, '/console/settings/connections', owner)).html, 'No store is connected.')
  store.shopifyOrders = [
    {
      legacyResourceId: '5000',
      name: '#2000',
      email: 'c@example.com',
      createdAt: new Date().toISOString(),
      cancelledAt: null,
      customer: { firstName: 'Cam', lastName: 'N', email: 'c@example.com' },
      shippingAddress: { city: 'Paris', zip: '75002', countryCodeV2: 'FR', provinceCode: null },
      lineItems: { nodes: [{ id: 'gid://shopify/LineItem/9000', name: 'Mug', sku: 'MUG', quantity: 1 }] },
      fulfillments: [],
    },
  ]
  const connection = (
    await server.request('POST', '/v2/connections', {
      body: {
        platform: 'shopify',
        shop_domain: 'acme.myshopify.com',
        access_token: SHOPIFY_TOKEN,
        webhook_secret: 's',
      },
    })
  ).body
  const page = (await get(server, '/console/settings/connections', owner)).html
  t.match(page, 'Shopify · acme.myshopify.com')
  t.match(page, `value="${connection.webhook_url}"`, 'the address to give the store')
  t.match(page, 'Active</span>')

  const sync = (since: string) =>
    post(server, `/console/settings/connections/${connection.id}/sync`, owner, { _csrf: csrfOf(page), since })
  const wrong = await sync('last week')
  t.equal(wrong.status, 400)
  t.match(wrong.html, 'since: must be a date YYYY-MM-DD')
  const synced = await sync(isoDay(nowSeconds() - 7 * DAY))
  t.equal(synced.status, 303)
  const job = /\(job (\d+)\)/.exec(decodeURIComponent(synced.location ?? ''))?.[1]
  t.ok(job, 'the sync is a job, named')
  t.equal((await waitForJob(server, Number(job))).job.status, 'completed')
  t.equal((await server.request('GET', '/v2/orders?order_number=%232000')).body.data.length, 1, 'the order came in')

  const member = await signedIn(server)
  const read = (await get(server, '/console/settings/connections', member)).html
  t.notMatch(read, 'Sync now', 'members read, owners change')
  t.equal(
    (await post(server, `/console/settings/connections/${connection.id}/delete`, member, { _csrf: csrfOf(read) }))
      .status,
    403,
  )
  const gone = await post(server, `/console/settings/connections/${connection.id}/delete`, owner, {
    _csrf: csrfOf(page),
  })
  t.equal(gone.status, 303)
  t.match(
    decodeURIComponent(gone.location ?? ''),
    'acme.myshopify.com is disconnected: its parcels here are still tracked.',
  )
  t.equal((await server.request('GET', `/v2/connections/${connection.id}`)).status, 404, 'the API agrees')
  t.match((await get(server, '/console/settings/connections', owner)).html, 'No store is connected.')
  t.equal(
    (await post(server, `/console/settings/connections/${connection.id}/delete`, owner, { _csrf: csrfOf(page) }))
      .status,
    404,
    'disconnected once',
  )
})

t.test('a message of the delivery log is sent again from its row, by owners', async (t) => {
  const server = await startTestServer(t, {
    env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true', SHIPLOG_WEBHOOK_RETRY_SCHEDULE: '1' },
  })
  const receiver = await startReceiver(t)
  receiver.fallback = 503
  const endpoint = (
    await server.request('POST', '/v2/webhook_endpoints', {
      body: { url: receiver.url, enabled_events: ['order.created'] },
    })
  ).body as { id: number }
  await postTrackers(server, [{ order_number: 'W-1', tracking_number: 'TN-W1', carrier_code: 'dhl' }])
  const log = `/v2/webhook_endpoints/${endpoint.id}/deliveries`
  const failed = await until(
    () => server.request('GET', log),
    (answer) => answer.body.data[0]?.status === 'failed',
  )
  const delivery = failed.body.data[0] as { id: number; webhook_id: string }

  const owner = await signedIn(server, 'olu@shop.example', 'owner')
  const page = (await get(server, `/console/webhooks/${endpoint.id}`, owner)).html
  const action = `/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/replay`
  t.match(page, `<form method="post" action="${action}"`, 'each row has its Send again')
  t.match(page, `Send again<span class="visually-hidden"> ${delivery.webhook_id}</span>`, 'named for a screen reader')

  const member = await signedIn(server)
  const read = (await get(server, `/console/webhooks/${endpoint.id}`, member)).html
  t.notMatch(read, 'Send again', 'members read, owners send')
  t.equal((await post(server, action, member, { _csrf: csrfOf(read) })).status, 403)
  t.equal(receiver.received.length, 2, 'a member sent nothing')

  receiver.fallback = 200
  const sent = await post(server, action, owner, { _csrf: csrfOf(page) })
  t.equal(sent.status, 303)
  t.match(
    decodeURIComponent(sent.location ?? ''),
    `${delivery.webhook_id} (order.created) is being sent again: its answer appears below.`,
  )
  const [, , again] = await receiver.waitFor(3)
  t.equal(again!.headers['webhook-id'], delivery.webhook_id, 'the same message, under its webhook-id')
  const after = await until(
    () => get(server, `/console/webhooks/${endpoint.id}`, owner),
    (p) => p.html.includes('<td>succeeded'),
  )
  t.match(after.html, /HTTP 200/, 'the log shows the answer')
  const unknown = await post(server, `/console/webhooks/${endpoint.id}/deliveries/999/replay`, owner, {
    _csrf: csrfOf(page),
  })
  t.equal(unknown.status, 404)
})

t.test(
  'bulk actions on parcels: ticked or all matching; delays handled, refreshes asked, CSV; the ticks stay',
  async (t) => {
    const server = await startTestServer(t, { env: { SHIPLOG_DELAY_SWEEP_INTERVAL: '1' } })
    const late = `${isoDay(nowSeconds() - 4 * DAY)}T12:00:00Z`
    const created = await postTrackers(server, [
      { order_number: 'B-1', tracking_number: 'TN-B1', carrier_code: 'ups', expected_delivery_at: late },
      { order_number: 'B-2', tracking_number: 'TN-B2', carrier_code: 'ups', expected_delivery_at: late },
      { order_number: 'B-3', tracking_number: 'TN-B3', carrier_code: 'ups' },
    ])
    for (const number of ['TN-B1', 'TN-B2'])
      await until(
        () => trackerOf(server, number, created.position),
        (tr) => tr.delay?.status === 'late',
      )
    const ids = Object.fromEntries(
      created.body.trackers.map((tr: { tracking_number: string; id: number }) => [tr.tracking_number, String(tr.id)]),
    )
    const cookies = await signedIn(server)
    const page = (await get(server, '/console/parcels?carrier=ups', cookies)).html
    t.match(page, '<input type="checkbox" form="bulk" name="tracker"', 'a tick on each row')
    t.match(page, 'Every parcel of Active matching these filters (3)')
    const bulk = (form: Record<string, string | string[]>) => {
      const body = new URLSearchParams({ _csrf: csrfOf(page), back: '/console/parcels?carrier=ups' })
      for (const [k, v] of Object.entries(form)) {
        body.delete(k)
        for (const one of [v].flat()) body.append(k, one)
      }
      return fetch(`${server.url}/console/parcels/bulk`, {
        method: 'POST',
        headers: { cookie: cookies.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      })
    }

    const none = await bulk({ action: 'handled' })
    t.equal(none.status, 400, 'nothing ticked')
    const handled = await bulk({ action: 'handled', tracker: [ids['TN-B1']!, ids['TN-B3']!] })
    t.equal(handled.status, 303)
    const back = decodeURIComponent(handled.headers.get('location') ?? '')
    t.match(back, 'Marked 1 delay handled. 1 of the parcels had none open.')
    t.match(back, `selected=${ids['TN-B1']},${ids['TN-B3']}`)
    const after = (await get(server, handled.headers.get('location')!, cookies)).html
    t.equal((after.match(/ checked>/g) ?? []).length, 2, 'the ticks stay')
    t.match((await get(server, '/console/delays?handled=1', cookies)).html, '>B-1</a>', 'B-1 handled')
    t.match((await get(server, '/console/delays', cookies)).html, '>B-2</a>', 'B-2 still open')

    const delaysPage = (await get(server, '/console/delays?carrier=ups', cookies)).html
    t.match(
      delaysPage,
      '<input type="hidden" name="back" value="/console/delays?carrier&#x3D;ups">',
      'back to the list',
    )
    t.equal((delaysPage.match(/form="bulk" name="tracker"/g) ?? []).length, 1, 'a tick on each open delay: B-2')
    const fromDelays = await bulk({ action: 'handled', tracker: ids['TN-B1']!, back: '/console/delays?carrier=ups' })
    t.match(fromDelays.headers.get('location') ?? '', /^\/console\/delays\?carrier=ups&selected=/, 'back to the delays')
    t.match(
      decodeURIComponent(fromDelays.headers.get('location') ?? ''),
      'Marked 0 delays handled. 1 of the parcels had none open.',
    )
    const everyLate = await bulk({ action: 'handled', all: '1', delay: 'late', view: 'active' })
    t.match(decodeURIComponent(everyLate.headers.get('location') ?? ''), 'Marked 1 delay handled.', 'all matching: B-2')
    t.notMatch(everyLate.headers.get('location') ?? '', 'selected=', 'all matching are not listed one by one')

    const refreshed = await bulk({ action: 'refresh', tracker: ids['TN-B3']! })
    t.match(
      decodeURIComponent(refreshed.headers.get('location') ?? ''),
      /Asked the carriers about 0 parcels\. 1 not: Carrier ups is not polled/,
      'a refresh refused says why',
    )
    const csv = await bulk({ action: 'export', tracker: [ids['TN-B2']!, ids['TN-B3']!] })
    t.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8')
    t.equal((await csv.text()).trimEnd().split('\n').length, 3, 'the header and the two ticked')
    t.equal((await bulk({ action: 'delete', tracker: ids['TN-B3']! })).status, 400)
  },
)

t.test("another account's order is a 404; ten failed sign-ins a minute, then 429", async (t) => {
  const server = await startTestServer(t)
  const other = await server.newAccount()
  await createUser(server.runtime, { accountId: other.id, email: 'eve@example.com', role: 'owner', password: PASSWORD })
  const created = await postTrackers(server, [{ order_number: 'P-1', tracking_number: 'TN-P1', carrier_code: 'ups' }])
  const cookies = jar()
  await signIn(server, cookies, 'eve@example.com')
  const theirs = await get(server, `/console/orders/${created.body.trackers[0].order_id}`, cookies)
  t.equal(theirs.status, 404)
  const search = await get(server, '/console/parcels?q=TN-P1', cookies)
  t.notMatch(search.html, 'TN-P1</td>', 'not found by a search either')

  const guesser = jar()
  for (let i = 0; i < 10; i++) t.equal((await signIn(server, guesser, 'eve@example.com', `guess ${i}`)).status, 401)
  const limited = await signIn(server, guesser, 'eve@example.com')
  t.equal(limited.status, 429, 'even the right password waits')
  t.match(limited.html, /Try again in \d+ seconds/)
})

t.test(
  'settings forms: each refused without its CSRF token, owners only, another account’s endpoint a 404',
  async (t) => {
    const server = await startTestServer(t, { env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true' } })
    for (const [email, role] of [
      ['owner@shop.example', 'owner'],
      ['member@shop.example', 'member'],
    ] as const)
      await createUser(server.runtime, { accountId: server.accountId, email, role, password: PASSWORD })
    const other = await server.newAccount('Other shop')
    const theirs = await server.request('POST', '/v2/webhook_endpoints', {
      key: other.private_key,
      body: { url: 'http://127.0.0.1:9/hooks' },
    })
    t.equal(theirs.status, 201)
    const owner = jar()
    await signIn(server, owner, 'owner@shop.example')
    const forms: [string, Record<string, string>][] = [
      ['/console/settings/tracking-page', { brand_name: 'Forged' }],
      ['/console/notifications/types/shipped', { channels: 'email' }],
      ['/console/notifications/settings', { language_code: 'fr', stalled_after_business_days: '9' }],
      ['/console/settings/carriers', { carrier_code: 'dhl', service_code: 'x', name: 'Forged', lanes: '* * 2' }],
      ['/console/settings/team/keys', { understood: 'on' }],
      ['/console/settings/team/users', { email: 'forged@shop.example', password: 'a long enough passphrase' }],
      ['/console/webhooks', { url: 'http://127.0.0.1:9/forged' }],
      ['/console/webhooks/1', { url: 'http://127.0.0.1:9/forged' }],
      ['/console/webhooks/1/status', { status: 'disabled' }],
      ['/console/webhooks/1/test', {}],
      ['/console/webhooks/1/rotate', {}],
      ['/console/webhooks/1/replay', { since: '2026-01-01' }],
      ['/console/webhooks/1/deliveries/1/replay', {}],
      ['/console/webhooks/1/delete', { confirm: 'x' }],
      ['/console/settings/team/users/1/delete', {}],
      ['/console/delays/1/handled', {}],
      ['/console/orders/1/tracking_link/rotate', {}],
      ['/console/logout', {}],
    ]
    for (const [path, form] of forms) {
      const refused = await post(server, path, owner, form)
      t.equal(refused.status, 403, `${path} without a token`)
      t.match(refused.html, /nothing was changed/)
    }
    const account = await server.request('GET', '/v2/account')
    t.equal(account.status, 200, 'the keys were not rotated')
    t.match(account.body, { language_code: 'en', delay_rules: { stalled_after_business_days: 3 } })
    t.equal((await server.request('GET', '/v2/tracking_page')).body.brand_name, null)
    t.same((await server.request('GET', '/v2/webhook_endpoints')).body.data, [])
    t.same((await server.request('GET', '/v2/carrier_services')).body.data, [])

    const page = await get(server, '/console/settings/tracking-page', owner)
    const saved = await post(server, '/console/settings/tracking-page', owner, {
      _csrf: csrfOf(page.html),
      brand_name: 'Atelier',
    })
    t.equal(saved.status, 303, 'with the token, the owner’s change is made')
    t.equal((await server.request('GET', '/v2/tracking_page')).body.brand_name, 'Atelier')
    t.notMatch(
      (await get(server, '/console/settings/tracking-page', owner)).html,
      'class="warning"',
      'no colour, no warning',
    )
    await server.request('PATCH', '/v2/tracking_page', { body: { primary_color: '#ffd84d' } })
    t.match(
      (await get(server, '/console/settings/tracking-page', owner)).html,
      'On the page’s white, this colour’s contrast is 1.4:1',
      'a faint brand colour is pointed out',
    )
    await server.request('PATCH', '/v2/tracking_page', { body: { primary_color: '#1a56db' } })
    t.notMatch(
      (await get(server, '/console/settings/tracking-page', owner)).html,
      'class="warning"',
      'a dark one is not',
    )

    const member = jar()
    await signIn(server, member, 'member@shop.example')
    t.equal((await get(server, '/console/settings/team', member)).status, 403, 'a member is refused the keys and users')
    const read = await get(server, '/console/settings/tracking-page', member)
    t.equal(read.status, 200, 'a member reads the settings')
    const forbidden = await post(server, '/console/settings/tracking-page', member, {
      _csrf: csrfOf(read.html),
      brand_name: 'By a member',
    })
    t.equal(forbidden.status, 403)
    t.match(forbidden.html, /Only an owner of the account/)
    t.equal((await server.request('GET', '/v2/tracking_page')).body.brand_name, 'Atelier', 'unchanged')

    t.equal((await get(server, `/console/webhooks/${theirs.body.id}`, owner)).status, 404)
    const list = await get(server, '/console/webhooks', owner)
    const test = await post(server, `/console/webhooks/${theirs.body.id}/test`, owner, { _csrf: csrfOf(list.html) })
    t.equal(test.status, 404, 'another account’s endpoint cannot be tested')
    t.equal((await get(server, '/console/analytics/on-time.csv?weeks=4', owner)).status, 200)
    const wrong = await get(server, '/console/analytics?from=2026-13-01&to=2026-01-01', owner)
    t.equal(wrong.status, 400)
    t.match(wrong.html, /must be a date YYYY-MM-DD/)
  },
)
