import t, { type Test } from 'tap'
import { addDays, instantOf } from '../../shared/domain/delivery/calendar.ts'
import { fixedClock } from '../../shared/infra/clock.ts'
import { call, createAccountWithCli, freePort, serviceEnvironment, spawnServer } from '../support/process.ts'
import { until } from '../support/progress.ts'
import { startReceiver } from '../support/receiver.ts'
import { redisOn } from '../support/redis.ts'
import { postTrackers, recordTrackingEvents, startTestServer, type TestServer, trackerOf } from '../support/server.ts'
import { DAY, isoDay, nowSeconds } from '../support/time.ts'

/*
 * Late, stalled and at-risk parcels through the public API: the real
 * service, its delay sweep every second, past timestamps (a promise three
 * days gone, a last scan eight days old) so nothing waits for real days.
 */

const start = (t: Test, env: Record<string, string> = {}, clock?: ReturnType<typeof fixedClock>) =>
  startTestServer(t, {
    clock,
    env: { SHIPLOG_DELAY_SWEEP_INTERVAL: '1', SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
  })

const delayed = (server: TestServer, trackingNumber: string, status: string | null) =>
  until(
    () => trackerOf(server, trackingNumber),
    (tr) => (tr.delay?.status ?? null) === status,
  )

t.test('a promise three days gone makes a parcel late at once: told once, listed, cleared on delivery', async (t) => {
  const receiver = await startReceiver(t)
  const server = await start(t)
  await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: receiver.url, enabled_events: ['tracker.delayed', 'tracker.delay_cleared'] },
  })
  const promise = isoDay(nowSeconds() - 3 * DAY)
  const created = await postTrackers(server, [
    {
      order_number: 'L-1',
      tracking_number: 'TN-LATE',
      carrier_code: 'colissimo',
      email: 'ada@example.com',
      address_country: 'FR',
      address_city: 'Paris',
      expected_delivery_at: `${promise}T12:00:00Z`,
    },
    { order_number: 'L-2', tracking_number: 'TN-FINE', carrier_code: 'colissimo', address_country: 'FR' },
  ])
  t.equal(created.status, 201)

  const late = await delayed(server, 'TN-LATE', 'late')
  t.match(late.delay, { status: 'late', reason: 'promise_passed', expected_delivery_date: null })
  const endOfDay = instantOf('Europe/Paris', addDays(promise, 1), '00:00').getTime() / 1000
  t.equal(late.delay.since, endOfDay, 'since the end of that day in Paris')
  t.equal((await trackerOf(server, 'TN-FINE')).delay, null, 'a parcel within its promise has no delay')

  const lateList = await server.request('GET', '/v2/trackers?delay_status=late')
  t.same(
    lateList.body.data.map((tr: { tracking_number: string }) => tr.tracking_number),
    ['TN-LATE'],
  )
  const several = await server.request('GET', '/v2/trackers?delay_status=stalled&delay_status=at_risk')
  t.same(several.body.data, [], 'several statuses: any of them')
  const orders = await server.request('GET', '/v2/orders?delay_status=any')
  t.same(
    orders.body.data.map((o: { order_number: string }) => o.order_number),
    ['L-1'],
    'orders with a delayed parcel',
  )
  const wrong = await server.request('GET', '/v2/trackers?delay_status=slow')
  t.equal(wrong.status, 400)
  t.match(JSON.stringify(wrong.body), /delay_status/, 'the error names the parameter')
  const wrongOrders = await server.request('GET', '/v2/orders?delay_status=slow')
  t.equal(wrongOrders.status, 400)

  const expanded = await server.request(
    'GET',
    '/v2/trackers?tracking_number=TN-LATE&expand[]=notifications.notification_payloads&expand[]=notifications.notification_type',
  )
  const notifications = expanded.body.data[0].notifications.data
  t.same(
    notifications.map((n: { notification_type: { slug: string } }) => n.notification_type.slug),
    ['delayed'],
    'the customer is told once, by e-mail',
  )
  t.match(notifications[0].notification_payloads.data, [{ type: 'email' }])
  await until(
    async () => receiver.received.length,
    (n) => n >= 1,
  )
  t.match(receiver.received[0]!.json, { type: 'tracker.delayed', data: { object: { delay: { status: 'late' } } } })

  const link = await server.request('GET', `/v2/orders/${created.body.trackers[0].order_id}/tracking_link`)
  const page = await fetch(`${link.body.url}.json`)
  t.match(((await page.json()) as { parcels: unknown[] }).parcels[0], {
    tone: 'problem',
    delay: { status: 'late', label: 'Running late' },
  })
  const html = await (await fetch(link.body.url)).text()
  t.match(html, /<p class="delay" data-delay="late"><strong>Running late\.<\/strong>/, 'the page says so')

  await recordTrackingEvents(server, [
    { tracking_number: 'TN-LATE', event_type_code: 'delivered', happened_at: nowSeconds() - 60 },
  ])
  const delivered = await delayed(server, 'TN-LATE', null)
  t.equal(delivered.delivery_status_code, 'delivered')
  await until(
    async () => receiver.received.map((r) => r.json.type),
    (types) => types.includes('tracker.delay_cleared'),
  )
  const after = await server.request('GET', '/v2/trackers?delay_status=any')
  t.same(after.body.data, [], 'no longer listed')
})

t.test('a last scan eight days old makes a parcel stalled; a new scan clears it', async (t) => {
  const server = await start(t)
  await postTrackers(server, [{ order_number: 'S-1', tracking_number: 'TN-STALL', carrier_code: 'colissimo' }])
  await recordTrackingEvents(server, [
    { tracking_number: 'TN-STALL', event_type_code: 'transit', happened_at: nowSeconds() - 8 * DAY },
  ])
  const stalled = await delayed(server, 'TN-STALL', 'stalled')
  t.match(stalled.delay, { status: 'stalled', reason: 'no_scan' })
  t.ok(stalled.delay.since < nowSeconds() - DAY, 'stalled since days ago')
  const listed = await server.request('GET', '/v2/trackers?delay_status=any')
  t.equal(listed.body.data.length, 1)

  await recordTrackingEvents(server, [
    { tracking_number: 'TN-STALL', event_type_code: 'transit', happened_at: nowSeconds() - 60 },
  ])
  const moving = await trackerOf(server, 'TN-STALL')
  t.equal(moving.delay, null, 'cleared by the command that recorded the scan')
})

t.test('delay rules are settings of the account, validated like every field', async (t) => {
  const server = await start(t)
  const account = await server.request('GET', '/v2/account')
  t.same(account.body.delay_rules, { stalled_after_business_days: 3, notify_at_risk: false }, 'the defaults')
  const bad = await server.request('PATCH', '/v2/account', {
    body: { delay_rules: { stalled_after_business_days: 0 } },
  })
  t.equal(bad.status, 400)
  t.match(JSON.stringify(bad.body), /delay_rules\.stalled_after_business_days/)
  const unknown = await server.request('PATCH', '/v2/account', { body: { delay_rules: { stall_days: 2 } } })
  t.equal(unknown.status, 400)
  t.match(JSON.stringify(unknown.body), /delay_rules\.stall_days/)
  const changed = await server.request('PATCH', '/v2/account', {
    body: { delay_rules: { stalled_after_business_days: 5 } },
  })
  t.equal(changed.status, 200)
  t.same(changed.body.delay_rules, { stalled_after_business_days: 5, notify_at_risk: false }, 'the other rule kept')
  const again = await server.request('PATCH', '/v2/account', { body: { delay_rules: { notify_at_risk: true } } })
  t.same(again.body.delay_rules, { stalled_after_business_days: 5, notify_at_risk: true })
})

t.test('Redis restarted empty loses no deadline: the sweep finds it again in the index', async (t) => {
  const redis = await redisOn(t, await freePort())
  // A service of its own on that Redis, stopped as a crash would be: nothing waits on the Redis it lost.
  const env = await serviceEnvironment(t, { REDIS_URL: redis.url, SHIPLOG_DELAY_SWEEP_INTERVAL: '1' })
  const account = createAccountWithCli(env)
  const service = await spawnServer(env)
  t.teardown(() => service.kill('SIGKILL'))
  const send = async (path: string, method = 'GET', body?: unknown) =>
    (await (
      await call(service.url, account.private_key, path, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json()) as any
  await send('/v1/trackers', 'POST', {
    trackers: [{ order_number: 'R-1', tracking_number: 'TN-R', carrier_code: 'colissimo' }],
  })
  await redis.restart(200)
  await send('/v2/trackers/events', 'POST', {
    events: [{ tracking_number: 'TN-R', event_type_code: 'transit', happened_at: nowSeconds() - 8 * DAY }],
  })
  const stalled = await until(
    async () => (await send('/v2/trackers?tracking_number=TN-R')).data[0],
    (tr) => tr.delay?.status === 'stalled',
  )
  t.equal(stalled.delay.reason, 'no_scan')
})

t.test(
  "a parcel behind its lane's delivered parcels is at risk, with a revised date; another lane is not",
  async (t) => {
    // Monday 16 November 2026, noon in Paris; history shipped over the four weeks before.
    const clock = fixedClock('2026-11-16T11:00:00Z')
    const server = await start(t, {}, clock)
    const monday = Math.floor(Date.parse('2026-10-19T08:00:00Z') / 1000)
    // Sixty parcels, each shipped a Monday and promised Wednesday: scanned again Tuesday, they came Wednesday;
    // the half not scanned Tuesday came Friday, late.
    const history = Array.from({ length: 60 }, (_, i) => ({
      i,
      shipped: monday + 7 * DAY * (i % 4),
      onTime: i % 2 === 0,
    }))
    await postTrackers(
      server,
      history.map(({ i, shipped }) => ({
        order_number: `H-${i}`,
        tracking_number: `TN-H${i}`,
        carrier_code: 'colissimo',
        address_country: 'FR',
        expected_delivery_at: `${isoDay(shipped + 2 * DAY)}T12:00:00Z`,
      })),
    )
    await recordTrackingEvents(
      server,
      history.flatMap(({ i, shipped, onTime }) => [
        { tracking_number: `TN-H${i}`, event_type_code: 'origin_scan', happened_at: shipped },
        ...(onTime
          ? [
              { tracking_number: `TN-H${i}`, event_type_code: 'transit', happened_at: shipped + DAY },
              { tracking_number: `TN-H${i}`, event_type_code: 'delivered', happened_at: shipped + 2 * DAY },
            ]
          : [{ tracking_number: `TN-H${i}`, event_type_code: 'delivered', happened_at: shipped + 4 * DAY }]),
      ]),
    )
    // Today's parcels, shipped this morning and promised Wednesday: one to France, one to Belgium (no history there).
    const today = Math.floor(Date.parse('2026-11-16T08:00:00Z') / 1000)
    const rules = { delay_rules: { notify_at_risk: true } }
    t.equal((await server.request('PATCH', '/v2/account', { body: rules })).status, 200)
    await postTrackers(
      server,
      ['FR', 'BE'].map((country) => ({
        order_number: `N-${country}`,
        tracking_number: `TN-${country}`,
        carrier_code: 'colissimo',
        email: 'ada@example.com',
        address_country: country,
        expected_delivery_at: '2026-11-18T12:00:00Z',
      })),
    )
    await recordTrackingEvents(
      server,
      ['FR', 'BE'].map((country) => ({
        tracking_number: `TN-${country}`,
        event_type_code: 'origin_scan',
        happened_at: today,
      })),
    )
    // Wednesday morning, with no scan since Monday: where half the lane's parcels stood, all of them late.
    clock.set('2026-11-18T06:00:00Z')
    const atRisk = await delayed(server, 'TN-FR', 'at_risk')
    t.match(atRisk.delay, { status: 'at_risk', reason: 'behind_lane', expected_delivery_date: '2026-11-20' })
    t.equal((await trackerOf(server, 'TN-BE')).delay, null, 'a lane without history has no parcel at risk')
    const told = await server.request(
      'GET',
      '/v2/trackers?tracking_number=TN-FR&expand[]=notifications.notification_type',
    )
    const notification = told.body.data[0].notifications.data.find(
      (n: { notification_type: { slug: string } }) => n.notification_type.slug === 'delayed',
    )
    const preview = await server.request('GET', `/v2/notifications/${notification.id}/preview`)
    t.match(preview.body.text, 'Expected delivery: Friday, November 20, 2026', 'the e-mail gives the revised date')
    const order = await server.request('GET', '/v2/orders?delay_status=at_risk')
    t.same(
      order.body.data.map((o: { order_number: string }) => o.order_number),
      ['N-FR'],
    )
  },
)
