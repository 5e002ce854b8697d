import t from 'tap'
import { fixedClock } from '../../shared/infra/clock.ts'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import { waitForJob } from '../support/jobs.ts'
import { postTrackers, startTestServer } from '../support/server.ts'

const NOW = new Date('2026-11-18T10:00:00Z') // a Wednesday, 11:00 in Paris
const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday']

t.test(
  'read-your-writes by default: a read right after a 201 sees the write, without the position header',
  async (t) => {
    const server = await startTestServer(t)
    for (let i = 0; i < 20; i++) {
      const created = await postTrackers(server, [{ order_number: `RYW-${i}`, tracking_number: `T-${i}` }])
      t.equal(created.status, 201)
      const read = await server.request('GET', `/v2/orders?order_number=RYW-${i}`)
      t.equal(read.body.data.length, 1, `order ${i} is there at once`)
    }
  },
)

t.test('nested lists come in descending id order', async (t) => {
  const server = await startTestServer(t)
  await postTrackers(server, [
    { order_number: 'N-1', tracking_number: 'A' },
    { order_number: 'N-1', tracking_number: 'B' },
    { order_number: 'N-1', tracking_number: 'C' },
  ])
  const order = (await server.request('GET', '/v2/orders?order_number=N-1&expand[]=fulfillments.trackers')).body.data[0]
  const ids = order.fulfillments.data.map((f: { id: number }) => f.id)
  t.same(
    ids,
    [...ids].sort((a: number, b: number) => b - a),
  )
  t.same(
    order.fulfillments.data.map(
      (f: { trackers: { data: { tracking_number: string }[] } }) => f.trackers.data[0]!.tracking_number,
    ),
    ['C', 'B', 'A'],
  )
})

t.test('carrier_service: the configured service’s id and name; null id only when none is configured', async (t) => {
  const server = await startTestServer(t)
  const configured = await server.request('PUT', '/v2/carrier_services/colissimo/home', {
    body: {
      name: 'Colissimo Domicile',
      transit_days: [{ origin: null, destination: null, days: 2 }],
      cutoff_time: '16:00',
      time_zone: 'Europe/Paris',
      pickup_days: weekdays,
      delivery_days: weekdays,
    },
  })
  t.equal(configured.status, 201)
  await postTrackers(server, [
    { order_number: 'S-1', tracking_number: 'CS-1', carrier_code: 'colissimo', carrier_service_code: 'home' },
    { order_number: 'S-2', tracking_number: 'CS-2', carrier_code: 'colissimo', carrier_service_code: 'relay' },
  ])
  const tracker = async (n: string) => (await server.request('GET', `/v2/trackers?tracking_number=${n}`)).body.data[0]
  t.same((await tracker('CS-1')).carrier_service, {
    object: 'carrier_service',
    id: configured.body.id,
    code: 'home',
    name: 'Colissimo Domicile',
  })
  t.same((await tracker('CS-2')).carrier_service, { object: 'carrier_service', id: null, code: 'relay', name: 'relay' })
})

t.test('carriers people ship with in Europe have their name and tracking page', async (t) => {
  const server = await startTestServer(t)
  const carriers = {
    colissimo: 'Colissimo',
    chronopost: 'Chronopost',
    dpd: 'DPD',
    gls: 'GLS',
    mondial_relay: 'Mondial Relay',
    royal_mail: 'Royal Mail',
    postnl: 'PostNL',
    inpost: 'InPost',
  }
  await postTrackers(
    server,
    Object.keys(carriers).map((code) => ({
      order_number: `C-${code}`,
      tracking_number: `TN${code}42`,
      carrier_code: code,
    })),
  )
  for (const [code, name] of Object.entries(carriers)) {
    const tracker = (await server.request('GET', `/v2/trackers?tracking_number=TN${code}42&expand[]=carrier`)).body
      .data[0]
    t.same(tracker.carrier, { object: 'carrier', code, name }, code)
    t.match(tracker.tracking_link, new RegExp(`^https://.*TN${code}42`), `${code} tracking page`)
  }
})

t.test('country codes are ISO 3166-1 alpha-2 only, in the JSON API and in the CSV', async (t) => {
  const server = await startTestServer(t)
  const alpha3 = await postTrackers(server, [{ order_number: 'K-1', tracking_number: 'T', address_country: 'FRA' }])
  t.equal(alpha3.status, 400)
  t.match(alpha3.body.error, /trackers\.0\.address_country: .*2-letter ISO 3166-1/)
  t.equal(
    (await postTrackers(server, [{ order_number: 'K-2', tracking_number: 'T', address_country: 'fr' }])).status,
    201,
  )
  const upload = await server.upload(
    '/v2/pickup_points/import',
    csvForm(pickupPointCsv([point('P-1', { country_code: 'FRA' }), point('P-2', { country_code: 'FR' })])),
  )
  const { job } = await waitForJob(server, upload.body.id)
  t.match(job.results, [
    { status: 422, body: { merchant_id: 'P-1', line: 2, errors: { country_code: /ISO 3166-1/ } } },
    { status: 201 },
  ])
})

t.test('a tracker’s mute mutes that tracker only: the order is notified whatever the order of items', async (t) => {
  const server = await startTestServer(t)
  await postTrackers(server, [
    { order_number: 'MU-1', tracking_number: 'A', email: 'a@example.com', mute_notifications: true },
    { order_number: 'MU-1', tracking_number: 'B' },
  ])
  const order = (
    await server.request(
      'GET',
      '/v2/orders?order_number=MU-1&expand[]=notifications.notification_type&expand[]=fulfillments.trackers',
    )
  ).body.data[0]
  t.same(
    order.notifications.data.map((n: { notification_type: { slug: string } }) => n.notification_type.slug),
    ['order_placed'],
  )
  t.equal(order.mute_notifications, false)
  const trackers = order.fulfillments.data.map(
    (f: { trackers: { data: { tracking_number: string; mute_notifications: boolean }[] } }) => f.trackers.data[0]!,
  )
  t.same(
    Object.fromEntries(
      trackers.map((x: { tracking_number: string; mute_notifications: boolean }) => [
        x.tracking_number,
        x.mute_notifications,
      ]),
    ),
    { A: true, B: false },
  )
})

t.test('the exact created_at= and ordered_at= filters take ISO 8601 like the bracket forms', async (t) => {
  const server = await startTestServer(t, { clock: fixedClock(NOW) })
  await postTrackers(server, [{ order_number: 'D-1', tracking_number: 'T', order_date: '2026-11-17T08:30:00Z' }])
  const seconds = NOW.getTime() / 1000
  const byIso = await server.request('GET', `/v2/orders?created_at=${encodeURIComponent(NOW.toISOString())}`)
  t.equal(byIso.status, 200)
  t.same(
    byIso.body.data.map((o: { order_number: string }) => o.order_number),
    ['D-1'],
  )
  t.equal((await server.request('GET', `/v2/orders?created_at=${seconds}`)).body.data.length, 1)
  const ordered = await server.request('GET', '/v2/orders?ordered_at=2026-11-17T08:30:00Z')
  t.equal(ordered.body.data.length, 1)
  t.equal((await server.request('GET', '/v2/orders?created_at=2026-11-17T08:30:00Z')).body.data.length, 0)
})

t.test('estimation: the next cutoff at or after now, and a shipping date in the past is today', async (t) => {
  const late = new Date('2026-11-18T16:30:00Z') // 17:30 in Paris, after the 16:00 cutoff
  const server = await startTestServer(t, { clock: fixedClock(late) })
  await server.request('PUT', '/v2/carrier_services/colissimo/home', {
    body: {
      name: 'Home',
      transit_days: [{ origin: null, destination: null, days: 1 }],
      cutoff_time: '16:00',
      time_zone: 'Europe/Paris',
      pickup_days: weekdays,
      delivery_days: weekdays,
    },
  })
  const estimate = async (order?: object) =>
    (
      await server.request('POST', '/v1/delivery_date_estimation', {
        body: { delivery_date_estimation: order ? { order } : {} },
        key: server.publicKey,
      })
    ).body.best_estimation
  const now = await estimate()
  t.equal(now.cutoff_datetime_utc, '2026-11-19T15:00:00.000Z', 'tomorrow’s cutoff: today’s has passed')
  t.ok(new Date(now.cutoff_datetime_utc) >= late)
  const past = await estimate({ merchant_shipping_date: '2026-11-02' })
  t.same(past, now, 'a past shipping date is treated as today')
  const future = await estimate({ merchant_shipping_date: '2026-11-23' })
  t.equal(future.cutoff_datetime_utc, '2026-11-23T15:00:00.000Z')
  const impossible = await server.request('POST', '/v1/delivery_date_estimation', {
    body: { delivery_date_estimation: { order: { merchant_shipping_date: '2026-13-45' } } },
  })
  t.equal(impossible.status, 400)
  t.match(impossible.body.error, /merchant_shipping_date/)
})

t.test('a CSV row with the wrong number of cells is that row’s 422, with its line', async (t) => {
  const server = await startTestServer(t)
  const good = pickupPointCsv([point('R-1'), point('R-3')]).split('\n')
  const csv = [good[0], good[1], 'R-2;Short row;1 rue A', good[2], ''].join('\n')
  const upload = await server.upload('/v2/pickup_points/import', csvForm(csv))
  const { job } = await waitForJob(server, upload.body.id)
  t.equal(job.status, 'completed')
  t.match(job.results, [
    { status: 201, body: { merchant_id: 'R-1', line: 2 } },
    { status: 422, body: { merchant_id: 'R-2', line: 3, errors: { row: 'has 3 cells where the header has 40' } } },
    { status: 201, body: { merchant_id: 'R-3', line: 4 } },
  ])
})

t.test('the account’s language: PATCH /v2/account, and items without language_code take it', async (t) => {
  const server = await startTestServer(t)
  t.match((await server.request('GET', '/v2/account')).body, {
    object: 'account',
    id: server.accountId,
    language_code: 'en',
  })
  const patched = await server.request('PATCH', '/v2/account', { body: { language_code: 'fr' } })
  t.equal(patched.status, 200)
  t.match(patched.body, { object: 'account', language_code: 'fr' })
  t.notOk('private_key_hash' in patched.body, 'no key, not even hashed')
  await postTrackers(server, [
    { order_number: 'L-1', tracking_number: 'T' },
    { order_number: 'L-2', tracking_number: 'T', language_code: 'de' },
  ])
  const language = async (n: string) =>
    (await server.request('GET', `/v2/orders?order_number=${n}`)).body.data[0].language_code
  t.equal(await language('L-1'), 'fr')
  t.equal(await language('L-2'), 'de')
  const bad = await server.request('PATCH', '/v2/account', { body: { language_code: 'French' } })
  t.equal(bad.status, 400)
  t.match(bad.body.errors, { language_code: /ISO 639-1/ })
  const untranslated = await server.request('PATCH', '/v2/account', { body: { language_code: 'xx' } })
  t.equal(untranslated.status, 400, 'a language shiplog has no notifications in')
  t.match(untranslated.body.errors, {
    language_code: /^must be a language shiplog writes notifications in: en, fr, de, es, it, nl/,
  })
  t.match((await server.request('PATCH', '/v2/account', { body: { language_code: 'fr-CA' } })).body, {
    language_code: 'fr-CA',
  })
  t.equal((await server.request('PATCH', '/v2/account', { body: {}, key: server.publicKey })).status, 403)
})

t.test('the account’s time zone: UTC until changed, any case read as its IANA name', async (t) => {
  const server = await startTestServer(t)
  t.match((await server.request('GET', '/v2/account')).body, { time_zone: 'UTC' })
  const patched = await server.request('PATCH', '/v2/account', { body: { time_zone: 'europe/paris' } })
  t.equal(patched.status, 200)
  t.match(patched.body, { time_zone: 'Europe/Paris', language_code: 'en' })
  const bad = await server.request('PATCH', '/v2/account', { body: { time_zone: 'Mars/Olympus_Mons' } })
  t.equal(bad.status, 400)
  t.match(bad.body.errors, { time_zone: 'must be an IANA time zone such as Europe/Paris' })
  t.match(
    (await server.request('GET', '/v2/account')).body,
    { time_zone: 'Europe/Paris' },
    'the refused one changed nothing',
  )
})
