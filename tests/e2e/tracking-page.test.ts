import { createHash } from 'node:crypto'
import t from 'tap'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import { waitForJob } from '../support/jobs.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { createOrder, linkOf, pushEvents, trackedOrder } from '../support/tracking-page.ts'

/*
 * The customer's tracking page over HTTP, as a browser or a merchant's own
 * page would fetch it: the token, the page's contents, its headers, the
 * brand, the lookup form and the merchant's routes. tests/browser/ reads the
 * same pages in Chromium.
 */

const T0 = 1_795_000_000

const page = (server: TestServer, path: string, headers: Record<string, string> = {}) =>
  server.request('GET', path, { key: null, headers })

t.test('an order’s page: its parcels, their status, dates and timelines, newest first', async (t) => {
  const server = await startTestServer(t)
  const order = await createOrder(server)
  const position = await pushEvents(server, [
    {
      tracking_number: '6A12345678901',
      event_type_code: 'origin_scan',
      happened_at: T0,
      message: 'Parcel handed to Colissimo',
      address: { city: 'Paris', zip: '75015', country_code: 'FR' },
    },
    {
      tracking_number: '6A12345678901',
      event_type_code: 'out_for_delivery',
      happened_at: T0 + 86_400,
      message: 'Out for delivery',
      expected_delivery_at: T0 + 86_400,
    },
    { tracking_number: 'XY123456789FR', event_type_code: 'delivered', happened_at: T0 + 3600, message: 'Delivered' },
  ])
  const link = await linkOf(server, order.id, position)
  t.equal(link.status, 200)
  t.match(link.body, { object: 'tracking_link', order_id: order.id, token: /^[A-Za-z0-9_-]{54}$/ })
  t.equal(
    link.body.url,
    `${server.url}/track/${link.body.token}`,
    'the address this request came to, with no public URL',
  )
  t.notOk(link.body.token.includes(String(order.id)), 'the token names no id')

  const html = await page(server, `/track/${link.body.token}`)
  t.equal(html.status, 200)
  t.match(html.headers.get('content-type'), /^text\/html; charset=utf-8/)
  const text: string = html.body
  t.match(text, 'Your order W-2001')
  t.match(text, 'Hello Camille')
  t.match(text, 'Parcel 1 of 2')
  t.match(text, /data-status="out_for_delivery">Out for delivery</)
  t.match(text, /data-status="delivered">Delivered</)
  t.match(text, 'Colissimo')
  t.match(text, /aria-current="step"/)
  // Times in the customer's zone (Lyon: Europe/Paris, UTC+1 in November).
  const json = await page(server, `/track/${link.body.token}.json`)
  t.equal(json.status, 200)
  const colissimo = json.body.parcels.find((p: any) => p.tracking_number === '6A12345678901')
  t.equal(json.body.time_zone, 'Europe/Paris')
  t.same(
    colissimo.events.map((e: any) => e.event_type_code),
    ['out_for_delivery', 'origin_scan'],
    'the timeline newest first',
  )
  t.match(colissimo.events[1], { place: '75015 Paris, France', message: 'Parcel handed to Colissimo' })
  t.equal(colissimo.events[1].happened_at, '2026-11-18T11:06:40.000Z')
  t.equal(colissimo.events[1].time, 'Nov 18, 2026, 12:06 PM CET', 'the time in the customer’s zone, named')
  t.match(colissimo.expected_delivery, { kind: 'carrier', kind_label: 'date given by the carrier' })
  t.same(
    colissimo.steps.map((s: any) => s.state),
    ['done', 'done', 'current', 'upcoming'],
  )
  const chronopost = json.body.parcels.find((p: any) => p.tracking_number === 'XY123456789FR')
  t.match(chronopost, { delivery_status_code: 'delivered', tone: 'done', expected_delivery: null })
  t.same(json.body.line_items, [
    { name: 'Blue mug', quantity: 2, image_url: 'https://cdn.shop.example/mug.png' },
    { name: 'Tea towel', quantity: 1, image_url: null },
  ])
  t.match(text, 'src="https://cdn.shop.example/mug.png"')
  t.notMatch(text, 'http://cdn.shop.example', 'no image over plain http')
})

t.test('the page shows first name, city and postcode; the rest only when the account turns it on', async (t) => {
  const server = await startTestServer(t)
  const order = await createOrder(server)
  const { token } = (await linkOf(server, order.id)).body
  const before = await page(server, `/track/${token}`)
  for (const hidden of ['camille.durand@example.org', '+33612345678', '8 rue des Lilas', 'Durand'])
    t.notMatch(before.body, hidden, `${hidden} is not shown`)
  t.match(before.body, '69004 Lyon')
  t.match((await page(server, `/track/${token}.json`)).body.customer, {
    first_name: 'Camille',
    city: 'Lyon',
    zip: '69004',
    email: null,
    phone: null,
    address1: null,
    last_name: null,
  })

  const changed = await server.request('PATCH', '/v2/tracking_page', { body: { show_contact_details: true } })
  t.equal(changed.status, 200)
  const after = await page(server, `/track/${token}`)
  for (const shown of ['8 rue des Lilas', 'Camille Durand']) t.match(after.body, shown)
})

t.test('tokens: unguessable, per order, revoked by a rotation, never another account’s', async (t) => {
  const server = await startTestServer(t)
  const order = await createOrder(server)
  const first = (await linkOf(server, order.id)).body.token
  t.equal((await linkOf(server, order.id)).body.token, first, 'the same link until it is rotated')

  const forged = `${first.slice(0, 20)}${first[20] === 'A' ? 'B' : 'A'}${first.slice(21)}`
  for (const token of [forged, 'abc', first.slice(0, -1), String(order.id), `${first}x`]) {
    const answer = await page(server, `/track/${encodeURIComponent(token)}`)
    t.equal(answer.status, 404, `${token} finds nothing`)
    t.match(answer.headers.get('content-type'), /text\/html/)
    t.match(answer.body, 'Page not found')
    t.notMatch(answer.body, /Error|stack|at .*\.ts/, 'a page, not a trace')
  }
  const jsonMiss = await page(server, `/track/${forged}.json`)
  t.equal(jsonMiss.status, 404)

  const rotated = await server.request('POST', `/v2/orders/${order.id}/tracking_link/rotate`)
  t.equal(rotated.status, 200)
  t.not(rotated.body.token, first)
  t.equal((await page(server, `/track/${first}`)).status, 404, 'the old link is revoked')
  t.equal((await page(server, `/track/${rotated.body.token}`)).status, 200)
  t.equal((await linkOf(server, order.id)).body.token, rotated.body.token)

  const other = await server.newAccount()
  t.equal((await linkOf(server, order.id, undefined, other.private_key)).status, 404, 'another account’s order')
  t.equal(
    (await server.request('POST', `/v2/orders/${order.id}/tracking_link/rotate`, { key: other.private_key })).status,
    404,
  )
  t.equal((await linkOf(server, order.id, undefined, server.publicKey)).status, 403, 'the public key cannot')
  t.equal((await server.request('POST', '/v2/orders/999/tracking_link/rotate')).status, 404)
})

t.test('every value is escaped and the page is served with a strict policy', async (t) => {
  const server = await startTestServer(t)
  const order = await createOrder(
    server,
    trackedOrder({
      first_name: '<script>alert(1)</script>',
      line_items: [{ merchant_id: 'L1', name: '"><img src=x onerror=alert(2)>', quantity: 1 }],
    }),
  )
  await pushEvents(server, [
    { tracking_number: '6A12345678901', event_type_code: 'transit', happened_at: T0, message: '<b>bold</b> & co' },
  ])
  const { token } = (await linkOf(server, order.id)).body
  const answer = await page(server, `/track/${token}`)
  t.notMatch(answer.body, '<script>')
  t.notMatch(answer.body, '<img src=x')
  t.match(answer.body, '&lt;script&gt;alert(1)&lt;/script&gt;')
  t.match(answer.body, '&lt;b&gt;bold&lt;/b&gt; &amp; co')
  const policy = answer.headers.get('content-security-policy') ?? ''
  t.match(policy, "default-src 'none'")
  t.notMatch(policy, 'script-src', 'no script is allowed at all')
  t.notMatch(policy, 'unsafe-inline')
  t.match(policy, "img-src 'self' https:")
  t.equal(answer.headers.get('x-content-type-options'), 'nosniff')
  t.equal(answer.headers.get('referrer-policy'), 'no-referrer')
  t.notMatch(answer.body, /<script/)
})

t.test('branding: validated settings, shown on the page with the style allowed by its hash', async (t) => {
  const server = await startTestServer(t)
  const defaults = await server.request('GET', '/v2/tracking_page')
  t.same(defaults.body, {
    object: 'tracking_page',
    logo_url: null,
    brand_name: null,
    primary_color: null,
    support_email: null,
    support_url: null,
    custom_css: null,
    show_contact_details: false,
  })
  for (const [body, field] of [
    [{ primary_color: 'red' }, 'primary_color'],
    [{ primary_color: '#12345' }, 'primary_color'],
    [{ logo_url: 'http://cdn.shop.example/logo.png' }, 'logo_url'],
    [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
    [{ support_email: 'not an address' }, 'support_email'],
    [{ support_url: 'ftp://shop.example' }, 'support_url'],
    [{ custom_css: 'body{}</style><script>alert(1)</script>' }, 'custom_css'],
    [{ brand_name: '' }, 'brand_name'],
    [{ colour: '#000000' }, 'colour'],
  ] as const) {
    const refused = await server.request('PATCH', '/v2/tracking_page', { body })
    t.equal(refused.status, 400, JSON.stringify(body))
    t.match(JSON.stringify(refused.body), field, `the message names ${field}`)
  }
  const set = await server.request('PATCH', '/v2/tracking_page', {
    body: {
      brand_name: 'Atelier Lumière',
      logo_url: 'https://cdn.shop.example/logo.svg',
      primary_color: '#7a1fa2',
      support_email: 'help@shop.example',
      support_url: 'https://shop.example/help',
      custom_css: '.brand-name { letter-spacing: 0.05em; }',
    },
  })
  t.equal(set.status, 200)
  t.match(set.body, { brand_name: 'Atelier Lumière', primary_color: '#7a1fa2', show_contact_details: false })
  t.match((await server.request('PATCH', '/v2/tracking_page', { body: { custom_css: null } })).body, {
    brand_name: 'Atelier Lumière',
    custom_css: null,
  })

  const order = await createOrder(server)
  const { token } = (await linkOf(server, order.id)).body
  const answer = await page(server, `/track/${token}`)
  t.match(answer.body, 'src="https://cdn.shop.example/logo.svg" alt="Atelier Lumière"')
  t.match(answer.body, 'href="mailto:help@shop.example"')
  const style = /<style>([^<]*)<\/style>/.exec(answer.body)?.[1] ?? ''
  t.match(style, '--brand:#7a1fa2')
  t.match(style, '--on-brand:#ffffff', 'white reads on a dark purple')
  const hash = createHash('sha256').update(style).digest('base64')
  t.match(answer.headers.get('content-security-policy'), `'sha256-${hash}'`, 'the inline style is allowed by its hash')
})

t.test('language: the order’s, then ?lang=, with the browser’s for a page without an order', async (t) => {
  const server = await startTestServer(t)
  const order = await createOrder(server, trackedOrder({ language_code: 'fr' }))
  await pushEvents(server, [{ tracking_number: '6A12345678901', event_type_code: 'transit', happened_at: T0 }])
  const { token } = (await linkOf(server, order.id)).body
  const french = await page(server, `/track/${token}`, { 'accept-language': 'en-GB' })
  t.match(french.body, '<html lang="fr">')
  t.match(french.body, 'Votre commande W-2001')
  t.match(french.body, 'En route')
  const english = await page(server, `/track/${token}?lang=en`)
  t.match(english.body, 'Your order W-2001')
  t.match(english.body, 'On its way')
  t.match((await page(server, `/track/${token}.json?lang=en`)).body, { language: 'en' })
  const missing = await page(server, '/track/nothing-here', { 'accept-language': 'pt-BR, fr;q=0.8, en;q=0.5' })
  t.match(missing.body, 'Page introuvable', 'the first language of the browser shiplog writes')
  const german = await page(server, '/track/nothing-here', { 'accept-language': 'de-AT, en;q=0.5' })
  t.match(german.body, 'Seite nicht gefunden', 'German, from the browser')
})

t.test('lookup: order number and e-mail or postcode, never saying which half was wrong, rate limited', async (t) => {
  const server = await startTestServer(t)
  const order = await createOrder(server)
  const { token } = (await linkOf(server, order.id)).body
  const form = await page(server, `/track?account=${server.accountId}`)
  t.equal(form.status, 200)
  t.match(form.body, 'action="/track/lookup"')
  t.match(form.body, `name="account" value="${server.accountId}"`)
  t.match((await page(server, '/track')).body, 'Track your order', 'a form without the shop’s link too')

  const noRedirect = { redirect: 'manual' } as const
  const lookup = (query: string) =>
    fetch(`${server.url}/track/lookup?${query}`, { ...noRedirect, headers: { 'x-forwarded-for': '' } })
  const byEmail = await lookup(`account=${server.accountId}&order_number=W-2001&contact=CAMILLE.durand%40example.org`)
  t.equal(byEmail.status, 303)
  t.equal(byEmail.headers.get('location'), `/track/${token}`)
  const byPostcode = await lookup('order_number=W-2001&contact=69%20004&lang=fr')
  t.equal(byPostcode.status, 303, 'any account, a postcode written with a space')
  t.equal(byPostcode.headers.get('location'), `/track/${token}?lang=fr`)

  const wrongNumber = await lookup('order_number=W-9999&contact=camille.durand%40example.org')
  const wrongContact = await lookup('order_number=W-2001&contact=someone%40example.org')
  t.equal(wrongNumber.status, 404)
  t.equal(wrongContact.status, 404)
  const message = (html: string) => /<p class="not-found"[^>]*>([^<]*)</.exec(html)?.[1]
  const [one, two] = [message(await wrongNumber.text()), message(await wrongContact.text())]
  t.ok(one)
  t.equal(one, two, 'the same words whichever half was wrong')
  const other = await server.newAccount()
  t.equal((await lookup(`account=${other.id}&order_number=W-2001&contact=69004`)).status, 404, 'not in another shop')
  t.equal((await lookup('order_number=&contact=')).status, 400)

  let limited: Response | undefined
  for (let i = 0; i < 12 && !limited; i++) {
    const answer = await lookup('order_number=W-0&contact=0')
    if (answer.status === 429) limited = answer
  }
  t.ok(limited, 'past 10 lookups a minute from one address: 429')
  t.ok(limited?.headers.get('retry-after'))
  t.equal((await page(server, `/track/${token}`)).status, 200, 'the pages themselves still answer')
})

t.test('lookup guesses spread over addresses and processes: 20 misses an hour per order number', async (t) => {
  // Two processes of one layout: the same Redis and queue name, each its own stores.
  const env = { TRUST_PROXY: 'true', QUEUE_NAME: `test-lookups-${Date.now()}` }
  const [a, b] = [await startTestServer(t, { env }), await startTestServer(t, { env })]
  await createOrder(a)
  const lookup = (server: typeof a, from: string, query: string) =>
    fetch(`${server.url}/track/lookup?${query}`, { redirect: 'manual', headers: { 'x-forwarded-for': from } })
  const statuses: number[] = []
  for (let i = 0; i < 21; i++) {
    const server = i % 2 ? b : a
    statuses.push((await lookup(server, `198.51.100.${i + 1}`, `order_number=W-2001&contact=guess${i}`)).status)
  }
  t.same(statuses.slice(0, 20), Array(20).fill(404), 'twenty misses, each from its own address, on either process')
  t.equal(statuses[20], 429, 'the twenty-first guess at the order number is refused, whichever the address')
  const refused = await lookup(a, '203.0.113.5', 'order_number=W-2001&contact=camille.durand%40example.org')
  t.equal(refused.status, 429, 'even the right answer, until the hour is over')
  t.ok(Number(refused.headers.get('retry-after')) > 60)
  t.equal((await lookup(a, '203.0.113.5', 'order_number=W-7777&contact=x')).status, 404, 'other numbers go on')

  // One IPv6 /64 is one client, whatever address of it a guess comes from.
  const fromSlash64: number[] = []
  for (let i = 0; i < 11; i++)
    fromSlash64.push(
      (await lookup(i % 2 ? b : a, `2001:db8:1:2::${(i + 1).toString(16)}`, `order_number=V-${i}&contact=x`)).status,
    )
  t.same(fromSlash64.slice(0, 10), Array(10).fill(404))
  t.equal(fromSlash64[10], 429, 'the /64 made its ten tries a minute, across both processes')
  t.equal((await lookup(a, '2001:db8:1:3::1', 'order_number=V-99&contact=x')).status, 404, 'another /64 goes on')
})

t.test('a parcel waiting at a pickup point shows the imported point with its opening hours', async (t) => {
  const server = await startTestServer(t)
  const csv = pickupPointCsv([
    point('PP-LYON-01', {
      name: 'Tabac de la Croix-Rousse',
      address1: '12 boulevard de la Croix-Rousse',
      city: 'Lyon',
      postal_code: '69004',
      monday_am_opening: '08:30',
      monday_am_closing: '12:30',
      monday_pm_opening: '14:00',
      monday_pm_closing: '19:00',
    }),
    point('PP-LYON-02', { name: 'Other shop', address1: '1 place Bellevue', city: 'Lyon', postal_code: '69004' }),
  ])
  const imported = await server.upload('/v2/pickup_points/import', csvForm(csv))
  await waitForJob(server, imported.body.id)
  const order = await createOrder(server)
  const position = await pushEvents(server, [
    {
      tracking_number: '6A12345678901',
      event_type_code: 'pickup_point',
      happened_at: T0,
      address: { address1: '12 BD DE LA CROIX ROUSSE', city: 'LYON', zip: '69 004', country_code: 'FR' },
    },
    {
      tracking_number: 'XY123456789FR',
      event_type_code: 'pickup_point',
      happened_at: T0,
      address: { address1: '3 rue Inconnue', city: 'Lyon', zip: '69001', country_code: 'FR' },
    },
  ])
  const { token } = (await linkOf(server, order.id, position)).body
  const data = (await page(server, `/track/${token}.json`)).body
  const [matched, unknown] = ['6A12345678901', 'XY123456789FR'].map(
    (n) => data.parcels.find((p: any) => p.tracking_number === n).pickup_point,
  )
  t.match(matched, { name: 'Tabac de la Croix-Rousse', postal_code: '69004' })
  t.same(matched.opening_hours[0], { day: 'Monday', hours: '08:30–12:30, 14:00–19:00' })
  t.same(matched.opening_hours[6], { day: 'Sunday', hours: 'Closed' })
  t.match(unknown, { name: null, address1: '3 rue Inconnue', postal_code: '69001', opening_hours: null })
  const html = (await page(server, `/track/${token}`)).body
  t.match(html, 'Ready for pickup')
  t.match(html, 'Tabac de la Croix-Rousse')
  t.match(html, '<caption>Opening hours</caption>')
})

t.test('the style sheet is cached and revalidated; a page of 5 parcels and 40 events stays small', async (t) => {
  const server = await startTestServer(t)
  const first = await fetch(`${server.url}/track/assets/tracking-page.css`)
  t.equal(first.status, 200)
  t.match(first.headers.get('cache-control'), /max-age=\d+/)
  const etag = first.headers.get('etag')!
  t.ok(etag)
  const again = await fetch(`${server.url}/track/assets/tracking-page.css`, { headers: { 'if-none-match': etag } })
  t.equal(again.status, 304)

  const numbers = ['TN-A', 'TN-B', 'TN-C', 'TN-D', 'TN-E']
  const order = await createOrder(
    server,
    trackedOrder({
      fulfillments: numbers.map((n, i) => ({ merchant_id: `F${i}`, trackers: [{ tracking_number: n }] })),
    }),
  )
  const position = await pushEvents(
    server,
    numbers.flatMap((n) =>
      Array.from({ length: 8 }, (_, i) => ({
        tracking_number: n,
        event_type_code: 'transit',
        happened_at: T0 + i * 3600,
        message: `Parcel in transit through sorting centre number ${i}`,
        address: { city: 'Saint-Priest', zip: '69800', country_code: 'FR' },
      })),
    ),
  )
  const { token } = (await linkOf(server, order.id, position)).body
  const html = (await page(server, `/track/${token}`)).body as string
  t.equal((html.match(/class="event"/g) ?? []).length, 40)
  const bytes = Buffer.byteLength(html)
  t.ok(bytes < 50_000, `${bytes} bytes`)
})
