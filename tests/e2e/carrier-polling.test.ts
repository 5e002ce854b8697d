import t, { type Test } from 'tap'
import { DHL_KEY, LAPOSTE_KEY, startCarrierServer, type CarrierServer } from '../support/carrier-api.ts'
import { type Clock, fixedClock } from '../../shared/infra/clock.ts'
import { pollTicksPassed, until } from '../support/progress.ts'
import { postTrackers, startTestServer, type TestServer, trackerOf } from '../support/server.ts'
import { csrfOf, get, post, signedIn } from '../support/console.ts'

/*
 * Carrier polling end to end: the real service polling a local HTTP server
 * that answers with DHL's and La Poste's documented shapes (never the real
 * carriers), every second (SHIPLOG_POLL_INTERVAL=1).
 */

const start = (t: Test, carrier: CarrierServer, env: Record<string, string> = {}, clock?: Clock) =>
  startTestServer(t, {
    clock,
    env: {
      SHIPLOG_DHL_API_URL: carrier.url,
      SHIPLOG_DHL_API_KEY: DHL_KEY,
      SHIPLOG_LAPOSTE_API_URL: carrier.url,
      SHIPLOG_LAPOSTE_API_KEY: LAPOSTE_KEY,
      SHIPLOG_POLL_INTERVAL: '1',
      ...env,
    },
  })

/** The order's recorded polls, newest first. */
async function polls(server: TestServer, orderId: string): Promise<{ data: { interval: number } }[]> {
  const history = await server.request('GET', `/v2/orders/${orderId}/history?limit=100`)
  return history.body.data.filter((e: { type: string }) => e.type === 'TrackerPolled')
}

t.test('a tracker of a polled carrier gets its events, once each, and stops being polled when final', async (t) => {
  const carrier = await startCarrierServer(t)
  carrier.laposteCodes.set('6A-OK', ['PC1', 'DR1'])
  const server = await start(t, carrier)
  await postTrackers(server, [
    { order_number: 'P-1', tracking_number: '6A-OK', carrier_code: 'colissimo' },
    { order_number: 'P-2', tracking_number: 'JD-OK', carrier_code: 'dhl' },
    { order_number: 'P-3', tracking_number: 'UPS-1', carrier_code: 'ups' },
  ])
  const colissimo = await until(
    () => trackerOf(server, '6A-OK'),
    (tr) => tr.events.data.length === 2,
  )
  t.equal(colissimo.delivery_status_code, 'in_transit')
  t.same(colissimo.events.data[0].messages, { fr: 'Libellé PC1' })
  const dhl = await until(
    () => trackerOf(server, 'JD-OK'),
    (tr) => tr.events.data.length === 2,
  )
  t.match(dhl, { delivery_status_code: 'in_transit', displayable_expected_delivery_kind: 'carrier' })

  // Polled again (nothing new): still two events, no duplicate.
  await until(
    async () => carrier.requests.get('6A-OK') ?? 0,
    (n) => n >= 2,
  )
  t.equal((await trackerOf(server, '6A-OK')).events.data.length, 2, 'a repeated poll records no duplicate')
  t.equal(carrier.requests.get('UPS-1'), undefined, 'a carrier without a tracking API is never asked')

  carrier.laposteCodes.set('6A-OK', ['DI1', 'MD2', 'PC1', 'DR1'])
  const delivered = await until(
    () => trackerOf(server, '6A-OK'),
    (tr) => tr.delivery_status_code === 'delivered',
  )
  t.equal(delivered.events.data.length, 4)
  const asked = carrier.requests.get('6A-OK')
  await pollTicksPassed(server, 'poll-laposte')
  t.equal(carrier.requests.get('6A-OK'), asked, 'a delivered tracker is not polled again')
})

t.test('an unchanged tracker is asked less and less often; unknown numbers stay pending', async (t) => {
  const carrier = await startCarrierServer(t)
  const server = await start(t, carrier)
  const created = await postTrackers(server, [
    { order_number: 'U-1', tracking_number: '6A-404', carrier_code: 'colissimo' },
  ])
  const polled = await until(
    () => polls(server, created.body.trackers[0].order_id),
    (events) => events.length >= 3,
  )
  const intervals = polled.map((e) => e.data.interval).reverse()
  t.same(intervals.slice(0, 3), [1, 2, 4], 'the wait doubles while nothing changes')
  t.equal((await trackerOf(server, '6A-404')).delivery_status_code, 'pending')
})

t.test('a rate limit is honoured, faults are retried, and a refused key stops that carrier', async (t) => {
  const carrier = await startCarrierServer(t)
  const server = await start(t, carrier, { SHIPLOG_DHL_API_KEY: 'refused-key' })
  await postTrackers(server, [
    { order_number: 'R-1', tracking_number: '6A-429', carrier_code: 'laposte' },
    { order_number: 'R-2', tracking_number: 'JD-OK', carrier_code: 'dhl' },
  ])
  await until(
    () => trackerOf(server, '6A-429'),
    (tr) => tr.events.data.length === 2,
  )
  t.ok((carrier.requests.get('6A-429') ?? 0) >= 2, 'asked again after the Retry-After')
  await until(
    async () => (await fetch(`${server.url}/metrics`)).text(),
    (m) => /shiplog_carrier_stopped\{api="dhl"\} 1/.test(m),
  )
  const asked = carrier.requests.get('JD-OK')
  await pollTicksPassed(server, 'poll-dhl')
  t.equal(carrier.requests.get('JD-OK'), asked, 'DHL is not asked again once it refused the key')
  t.equal((await trackerOf(server, 'JD-OK')).delivery_status_code, 'pending')
  const metrics = await (await fetch(`${server.url}/metrics`)).text()
  t.match(metrics, /# TYPE shiplog_carrier_polls_total counter/, 'polls are a counter')
  t.match(metrics, /shiplog_carrier_polls_total\{api="laposte",outcome="rate_limited"\} [1-9]/)
  t.match(metrics, /shiplog_carrier_polls_total\{api="dhl",outcome="unauthorized"\} [1-9]/)
  for (const queue of ['webhooks', 'poll-dhl', 'poll-laposte'])
    t.match(metrics, new RegExp(`shiplog_jobs\\{queue="[^"]+-${queue}",state="waiting"\\} \\d+`), `the ${queue} queue`)
})

t.test('POST /v2/trackers/{id}/refresh polls one tracker now', async (t) => {
  const carrier = await startCarrierServer(t)
  const server = await start(t, carrier, { SHIPLOG_POLL_INTERVAL: '3600' })
  const created = await postTrackers(server, [
    { order_number: 'F-1', tracking_number: '6A-OK', carrier_code: 'colissimo' },
    { order_number: 'F-2', tracking_number: 'UPS-2', carrier_code: 'ups' },
  ])
  const [polled, unpolled] = created.body.trackers
  await new Promise((r) => setTimeout(r, 300))
  const refreshed = await server.request('POST', `/v2/trackers/${polled.id}/refresh`)
  t.match(refreshed, { status: 202, body: { object: 'tracker_refresh', tracker_id: polled.id } })
  await until(
    () => trackerOf(server, '6A-OK'),
    (tr) => tr.events.data.length === 2,
  )
  t.equal((await server.request('POST', `/v2/trackers/${unpolled.id}/refresh`)).status, 409, 'a carrier not polled')
  const other = await server.newAccount()
  const theirs = await server.request('POST', `/v2/trackers/${polled.id}/refresh`, { key: other.private_key })
  t.equal(theirs.status, 404, "another account's tracker is not found")
})

t.test(
  "the console's Refresh from carrier: queued for a polled parcel, disabled with the reason otherwise",
  async (t) => {
    const carrier = await startCarrierServer(t)
    const server = await start(t, carrier, { SHIPLOG_POLL_INTERVAL: '3600' })
    const created = await postTrackers(server, [
      { order_number: 'C-1', tracking_number: '6A-OK', carrier_code: 'colissimo' },
      { order_number: 'C-2', tracking_number: 'UPS-2', carrier_code: 'ups' },
    ])
    const [polled, unpolled] = created.body.trackers
    const cookies = await signedIn(server)
    // Followed once its first poll is planned: the button is offered then.
    const page = await until(
      () => get(server, `/console/orders/${polled.order_id}`, cookies),
      (p) => p.html.includes(`/trackers/${polled.id}/refresh`),
    )
    const asked = carrier.requests.get('6A-OK') ?? 0
    const refreshed = await post(server, `/console/orders/${polled.order_id}/trackers/${polled.id}/refresh`, cookies, {
      _csrf: csrfOf(page.html),
    })
    t.equal(refreshed.status, 303)
    t.match(decodeURIComponent(refreshed.location ?? ''), 'Asked Colissimo for news')
    await until(
      async () => carrier.requests.get('6A-OK') ?? 0,
      (n) => n > asked,
    )
    t.pass('the carrier was asked at once, not an hour later')

    const other = (await get(server, `/console/orders/${unpolled.order_id}`, cookies)).html
    t.match(other, /<button type="button" disabled aria-describedby="refresh-why-\d+">Refresh from carrier<\/button>/)
    t.match(other, 'Carrier ups is not polled: its tracking API is not configured on this service.')
    const refused = await post(
      server,
      `/console/orders/${unpolled.order_id}/trackers/${unpolled.id}/refresh`,
      cookies,
      {
        _csrf: csrfOf(other),
      },
    )
    t.equal(refused.status, 409, 'a form sent anyway is refused for the same reason')
  },
)

t.test('a refresh the carrier fails is told on the order page at once, with what the data dates from', async (t) => {
  const carrier = await startCarrierServer(t)
  const server = await start(t, carrier, { SHIPLOG_POLL_INTERVAL: '3600' })
  const created = await postTrackers(server, [
    { order_number: 'S-1', tracking_number: '6A-OK', carrier_code: 'colissimo' },
  ])
  const [parcel] = created.body.trackers
  const cookies = await signedIn(server)
  const orderPage = `/console/orders/${parcel.order_id}`
  const answered = await until(
    () => get(server, orderPage, cookies),
    (p) => p.html.includes(`/trackers/${parcel.id}/refresh`) && p.html.includes('Libellé'),
  )
  t.notMatch(answered.html, 'Asking Colissimo failed', 'no warning while the carrier answers')

  carrier.down.add('6A-OK')
  const asked = carrier.requests.get('6A-OK') ?? 0
  const refreshed = await post(server, `${orderPage}/trackers/${parcel.id}/refresh`, cookies, {
    _csrf: csrfOf(answered.html),
  })
  t.equal(refreshed.status, 303)
  const stale = await until(
    () => get(server, orderPage, cookies),
    (p) => p.html.includes('Asking Colissimo failed'),
  )
  t.equal(carrier.requests.get('6A-OK'), asked + 1, 'asked once: a refresh is not retried behind the person waiting')
  t.match(
    stale.html,
    /<p class="warning">Asking Colissimo failed at \d+ \w+, \d\d:\d\d: answered 503\. What is shown is from its last answer, \d+ \w+, \d\d:\d\d\.<\/p>/,
  )
  const [failed] = await polls(server, parcel.order_id)
  t.match(failed, { data: { error: 'answered 503', changed: false } }, 'the log keeps why')

  carrier.down.delete('6A-OK')
  const again = await post(server, `${orderPage}/trackers/${parcel.id}/refresh`, cookies, { _csrf: csrfOf(stale.html) })
  t.equal(again.status, 303)
  await until(
    () => get(server, orderPage, cookies),
    (p) => !p.html.includes('Asking Colissimo failed'),
  )
  t.pass('the warning goes once the carrier answers again')
})

t.test('a tracker with no carrier event for 30 days is recorded expired, and polled no more', async (t) => {
  const carrier = await startCarrierServer(t)
  const clock = fixedClock('2026-10-01T10:00:00Z')
  const server = await start(t, carrier, {}, clock)
  const created = await postTrackers(server, [{ order_number: 'E-1', tracking_number: 'JD-404', carrier_code: 'dhl' }])
  // The first poll recorded, not merely asked: one recorded after the jump would be due a second past a frozen clock.
  await until(
    () => polls(server, created.body.trackers[0].order_id),
    (events) => events.length >= 1,
  )
  clock.set('2026-11-01T10:00:00Z')
  const expired = await until(
    () => trackerOf(server, 'JD-404'),
    (tr) => tr.delivery_status_code === 'expired',
  )
  t.match(expired.events.data[0], { event_type_code: 'expired', message: 'No news from the carrier for 30 days' })
  const asked = carrier.requests.get('JD-404')
  await pollTicksPassed(server, 'poll-dhl')
  t.equal(carrier.requests.get('JD-404'), asked, 'an expired tracker is not polled again')
})
