import t from 'tap'
import { fixedClock } from '../../shared/infra/clock.ts'
import { get, signedIn } from '../support/console.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/*
 * Delivery dates learned from the parcels shiplog has seen delivered, and
 * the carriers' performance, through the public routes: parcels shipped and
 * delivered by pushed carrier events, then the estimation and the analytics
 * read what they taught.
 */

const colissimo = {
  name: 'Colissimo Home',
  transit_days: [{ origin: 'FR', destination: 'FR', days: 2 }],
  cutoff_time: '14:00',
  time_zone: 'Europe/Paris',
  pickup_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  delivery_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
}
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000)
/** Shipped Monday 2 November 2026 from France; 20 delivered Friday 6th (4 business days), 5 Monday 9th (5). */
const SHIPPED = at('2026-11-02T09:00:00Z')
const deliveredOn = (i: number) => (i < 20 ? at('2026-11-06T10:00:00Z') : at('2026-11-09T10:00:00Z'))

async function shipAndDeliver(server: TestServer, count: number) {
  const trackers = Array.from({ length: count }, (_, i) => ({
    order_number: `H-${i}`,
    tracking_number: `TN-H${i}`,
    carrier_code: 'colissimo',
    carrier_service_code: 'home',
    address_country: 'FR',
    address_zip: '75002',
    address_city: 'Paris',
  }))
  const created = await server.request('POST', '/v1/trackers', { body: { trackers } })
  if (created.status !== 201) throw new Error(JSON.stringify(created.body))
  const events = trackers.flatMap((tr, i) => [
    {
      tracking_number: tr.tracking_number,
      event_type_code: 'origin_scan',
      happened_at: SHIPPED,
      address: { city: 'Lyon', zip: '69007', country_code: 'FR' },
    },
    ...(i === 3
      ? [{ tracking_number: tr.tracking_number, event_type_code: 'failed_attempt', happened_at: SHIPPED + 86_400 * 3 }]
      : []),
    { tracking_number: tr.tracking_number, event_type_code: 'delivered', happened_at: deliveredOn(i) },
  ])
  const pushed = await server.request('POST', '/v2/trackers/events', { body: { events } })
  if (pushed.status !== 201) throw new Error(JSON.stringify(pushed.body))
}

const estimate = (server: TestServer, destination: Record<string, string> = { country_code: 'FR' }) =>
  server.request('POST', '/v1/delivery_date_estimation', {
    body: { delivery_date_estimation: { origin: { country_code: 'FR' }, destination } },
  })

t.test('estimation learns from the deliveries seen; a lane without enough keeps the configured days', async (t) => {
  const clock = fixedClock('2026-11-26T10:00:00Z')
  const server = await startTestServer(t, { clock })
  t.equal((await server.request('PUT', '/v2/carrier_services/colissimo/home', { body: colissimo })).status, 201)
  const configured = await estimate(server)
  t.match(configured.body.delivery_date_estimations[0], {
    delivery_date: '2026-11-30',
    safe_delivery_date: '2026-12-01',
    basis: 'configured',
    sample_size: null,
  })
  await shipAndDeliver(server, 25)
  clock.set('2026-11-26T10:00:02Z')
  const learned = await estimate(server)
  t.match(learned.body.delivery_date_estimations[0], {
    // Shipped Thursday 26th before the cutoff: the median of 4 business days is Wednesday 2 December,
    // the 95th percentile of 5 Thursday 3rd.
    delivery_date: '2026-12-02',
    safe_delivery_date: '2026-12-03',
    basis: 'history',
    sample_size: 25,
  })
  t.same(learned.body.best_estimation, learned.body.delivery_date_estimations[0])
  const elsewhere = await estimate(server, { country_code: 'BE' })
  t.match(
    elsewhere.body.delivery_date_estimations[0],
    { basis: 'history', sample_size: 25 },
    'another destination falls back to the whole service’s history',
  )

  // A parcel that ships now is promised the learned date.
  const promised = await server.request('POST', '/v1/trackers', {
    body: {
      trackers: [
        {
          order_number: 'P-1',
          tracking_number: 'TN-P1',
          carrier_code: 'colissimo',
          carrier_service_code: 'home',
          address_country: 'FR',
        },
      ],
    },
  })
  t.equal(promised.status, 201)
  await server.request('POST', '/v2/trackers/events', {
    body: {
      events: [{ tracking_number: 'TN-P1', event_type_code: 'origin_scan', happened_at: at('2026-11-26T09:00:00Z') }],
    },
  })
  const tracker = await server.request('GET', '/v2/trackers?tracking_number=TN-P1')
  t.match(tracker.body.data[0], {
    displayable_expected_delivery_date: '2026-12-02',
    displayable_expected_delivery_kind: 'promise',
  })
  // The console's order page says what the promise rests on.
  const page = await get(server, `/console/orders/${promised.body.trackers[0].order_id}`, await signedIn(server))
  t.match(
    page.html,
    '<dd>Wed, 2 Dec 2026 <span class="muted">(learned: usually 2–3 Dec, from 25 similar parcels)</span></dd>',
  )
})

t.test('only the window counts: deliveries older than SHIPLOG_ESTIMATION_WINDOW_DAYS are forgotten', async (t) => {
  const clock = fixedClock('2027-03-01T10:00:00Z')
  const server = await startTestServer(t, { clock, env: { SHIPLOG_ESTIMATION_WINDOW_DAYS: '90' } })
  await server.request('PUT', '/v2/carrier_services/colissimo/home', { body: colissimo })
  await shipAndDeliver(server, 25)
  t.match(
    (await estimate(server)).body.delivery_date_estimations[0],
    { basis: 'configured' },
    'November is past the window',
  )
})

t.test('delivery performance: grouped, paginated, as CSV, and moved by a later correction', async (t) => {
  const clock = fixedClock('2026-11-26T10:00:00Z')
  const server = await startTestServer(t, { clock })
  await server.request('PUT', '/v2/carrier_services/colissimo/home', { body: colissimo })
  await shipAndDeliver(server, 25)
  const performance = (query: string) => server.request('GET', `/v2/analytics/delivery_performance?${query}`)
  const byCarrier = await performance('from=2026-11-01&to=2026-11-30&group_by=carrier')
  t.equal(byCarrier.status, 200)
  t.same(byCarrier.body.data, [
    {
      object: 'delivery_performance',
      key: 'colissimo',
      group: { carrier: 'colissimo' },
      delivered: 25,
      returned: 0,
      transit_business_days: { p50: 4, p90: 5 },
      // Promised Wednesday 4th (the configured 2 business days) when they shipped: none made it.
      on_time_rate: 0,
      failed_attempt_rate: 0.04,
      exception_rate: 0,
      returned_rate: 0,
    },
  ])
  const weeks = await performance('from=2026-11-01&to=2026-11-30&group_by[]=service&group_by[]=week&limit=1')
  t.match(weeks.body, {
    has_more: true,
    data: [{ group: { service: 'colissimo/home', week: '2026-W45' }, delivered: 20 }],
  })
  const next = await performance(
    `from=2026-11-01&to=2026-11-30&group_by[]=service&group_by[]=week&limit=1&starting_after=${encodeURIComponent(weeks.body.data[0].key)}`,
  )
  t.match(next.body, { has_more: false, data: [{ group: { week: '2026-W46' }, delivered: 5 }] })
  t.match(
    (await performance('from=2026-11-07&to=2026-11-30')).body.data,
    [{ key: '', delivered: 5 }],
    'only what ended in the period',
  )

  const csv = await fetch(
    `${server.url}/v2/analytics/delivery_performance.csv?from=2026-11-01&to=2026-11-30&group_by=destination_country`,
    {
      headers: { authorization: `Bearer ${server.privateKey}` },
    },
  )
  t.equal(csv.status, 200)
  t.match(csv.headers.get('content-type'), /^text\/csv/)
  t.equal(
    await csv.text(),
    'destination_country,delivered,returned,transit_p50,transit_p90,on_time_rate,failed_attempt_rate,exception_rate,returned_rate\nFR,25,0,4,5,0,0.04,0,0\n',
  )

  // The carrier corrects one parcel's delivery to a day later: it moves from Friday's sums to Saturday's.
  await server.request('POST', '/v2/trackers/events', {
    body: {
      events: [{ tracking_number: 'TN-H0', event_type_code: 'delivered', happened_at: at('2026-11-07T10:00:00Z') }],
    },
  })
  const moved = await performance('from=2026-11-06&to=2026-11-06')
  t.match(moved.body.data, [{ delivered: 19 }], 'a parcel counts once')
  // Two years on, November 2026 is older than the weeks a process keeps: it is read from the store.
  clock.set('2028-11-20T10:00:00Z')
  t.match((await performance('from=2026-11-06&to=2026-11-07')).body.data, [{ delivered: 20 }], 'older weeks read')
  clock.set('2026-11-26T10:00:00Z')

  for (const query of [
    'from=2026-11-30&to=2026-11-01',
    'from=2026-11-01&to=2026-11-30&group_by=colour',
    'to=2026-11-30',
    'from=2020-01-01&to=2026-11-30',
  ])
    t.equal((await performance(query)).status, 400, query)
  const other = await server.newAccount()
  const theirs = await server.request('GET', '/v2/analytics/delivery_performance?from=2026-11-01&to=2026-11-30', {
    key: other.private_key,
  })
  t.same(theirs.body.data, [], 'another account sees nothing')
})
