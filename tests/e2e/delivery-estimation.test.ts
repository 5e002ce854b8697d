import t from 'tap'
import { fixedClock } from '../../shared/infra/clock.ts'
import { toNewEvents } from '../../commands/execute.ts'
import {
  carrierServiceStream,
  legacyCarrierServiceStream,
} from '../../shared/domain/carrier-services/carrier-service.ts'
import type { DomainEvent } from '../../shared/domain/events/index.ts'
import { readAfter, startTestServer } from '../support/server.ts'

const colissimo = {
  name: 'Colissimo Home',
  transit_days: [
    { origin: 'FR', destination: 'FR', days: 2 },
    { origin: null, destination: null, days: 5 },
  ],
  cutoff_time: '14:00',
  time_zone: 'Europe/Paris',
  pickup_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  delivery_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
}

t.test('carrier services: configure, validate, list', async (t) => {
  const server = await startTestServer(t)
  const created = await server.request('PUT', '/v2/carrier_services/colissimo/home', { body: colissimo })
  t.equal(created.status, 201)
  t.match(created.body, {
    object: 'carrier_service',
    id: Number,
    code: 'home',
    name: 'Colissimo Home',
    carrier: { code: 'colissimo' },
    cutoff_time: '14:00',
  })
  const updated = await server.request('PUT', '/v2/carrier_services/colissimo/home', {
    body: { ...colissimo, cutoff_time: '15:30' },
  })
  t.equal(updated.status, 200)
  t.equal(updated.body.id, created.body.id)
  const list = await server.request('GET', '/v2/carrier_services', {
    headers: { 'x-shiplog-position': updated.headers.get('x-shiplog-position')! },
  })
  t.match(list.body, { object: 'list', has_more: false, data: [{ code: 'home', cutoff_time: '15:30' }] })

  const bad = async (body: object, field: RegExp) => {
    const r = await server.request('PUT', '/v2/carrier_services/colissimo/express', { body: { ...colissimo, ...body } })
    t.equal(r.status, 400, JSON.stringify(body))
    t.match(r.body.errors.details, field)
  }
  await bad({ time_zone: 'Mars/Olympus' }, /time_zone/)
  await bad({ transit_days: [{ origin: null, destination: null, days: -1 }] }, /transit_days\.0\.days/)
  await bad({ cutoff_time: '25:00' }, /cutoff_time/)
  await bad({ pickup_days: ['monday', 'funday'] }, /pickup_days\.1/)
  await bad({ transit_days: [{ origin: 'XX', destination: null, days: 1 }] }, /transit_days\.0\.origin/)
  await bad({ delivery_days: [] }, /delivery_days/)
  t.equal(
    (await server.request('PUT', '/v2/carrier_services/colissimo/home', { body: colissimo, key: server.publicKey }))
      .status,
    403,
    'the public key cannot configure',
  )
})

t.test('estimation: public or private key, every field optional, deterministic best', async (t) => {
  // Friday 2026-11-20 15:00 in Paris: after the cutoff.
  const server = await startTestServer(t, { clock: fixedClock('2026-11-20T14:00:00Z') })
  await server.request('PUT', '/v2/carrier_services/colissimo/home', { body: colissimo })
  const last = await server.request('PUT', '/v2/carrier_services/chronopost/13h', {
    body: {
      ...colissimo,
      name: 'Chrono 13',
      transit_days: [{ origin: null, destination: null, days: 1 }],
      cutoff_time: '18:00',
    },
  })
  const position = { 'x-shiplog-position': last.headers.get('x-shiplog-position')! }
  const estimate = (body: unknown, key = server.publicKey) =>
    server.request('POST', '/v1/delivery_date_estimation', { body, key, headers: position })

  const all = await estimate({})
  t.equal(all.status, 200)
  t.same(all.body, {
    delivery_date_estimations: [
      {
        carrier_code: 'chronopost',
        service_code: '13h',
        delivery_date: '2026-11-23',
        safe_delivery_date: '2026-11-24',
        cutoff_datetime_utc: '2026-11-20T17:00:00.000Z',
        basis: 'configured',
        sample_size: null,
      },
      {
        carrier_code: 'colissimo',
        service_code: 'home',
        delivery_date: '2026-11-30',
        safe_delivery_date: '2026-12-02',
        cutoff_datetime_utc: '2026-11-23T13:00:00.000Z',
        basis: 'configured',
        sample_size: null,
      },
    ],
    best_estimation: {
      carrier_code: 'chronopost',
      service_code: '13h',
      delivery_date: '2026-11-23',
      safe_delivery_date: '2026-11-24',
      cutoff_datetime_utc: '2026-11-20T17:00:00.000Z',
      basis: 'configured',
      sample_size: null,
    },
  })
  const lane = await estimate(
    {
      delivery_date_estimation: {
        origin: { country_code: 'fr', city: 'Paris' },
        destination: { country_code: 'FR' },
        carriers: [{ code: 'colissimo', service_code: null }],
      },
    },
    server.privateKey,
  )
  t.same(
    lane.body.delivery_date_estimations.map((e: { delivery_date: string }) => e.delivery_date),
    ['2026-11-25'],
    'private key too; FR lane: shipped Monday, 2 days',
  )
  const dated = await estimate({
    delivery_date_estimation: {
      order: { merchant_shipping_date: '2026-11-24' },
      carriers: [
        { code: 'colissimo', service_code: 'home' },
        { code: 'ups', service_code: 'standard' },
      ],
    },
  })
  t.same(
    dated.body.delivery_date_estimations.map((e: { service_code: string }) => e.service_code),
    ['home'],
    'a carrier that is not configured is left out',
  )
  t.equal(dated.body.delivery_date_estimations[0].delivery_date, '2026-12-01')
  const nothing = await estimate({ delivery_date_estimation: { carriers: [{ code: 'dhl', service_code: null }] } })
  t.same(nothing.body, { delivery_date_estimations: [], best_estimation: null })

  const malformed = await estimate({ delivery_date_estimation: { order: { merchant_shipping_date: '2026-02-30' } } })
  t.equal(malformed.status, 400)
  t.match(malformed.body.error, /delivery_date_estimation\.order\.merchant_shipping_date/)
  const wrongType = await estimate({ delivery_date_estimation: { carriers: 'all' } })
  t.same(wrongType.body, { error: 'Wrong data type for keys: delivery_date_estimation.carriers' })
  t.equal((await server.request('POST', '/v1/delivery_date_estimation', { body: {}, key: 'pk_unknown' })).status, 401)
  t.equal(
    (await server.request('GET', '/v2/orders', { key: server.publicKey })).status,
    403,
    'the public key works nowhere else',
  )
})

t.test(
  'carrier services whose codes hold _ keep streams of their own; one configured before goes on in its own',
  async (t) => {
    const server = await startTestServer(t)
    const first = await server.request('PUT', '/v2/carrier_services/a_b/c', { body: colissimo })
    const second = await server.request('PUT', '/v2/carrier_services/a/b_c', { body: colissimo })
    t.equal(first.status, 201)
    t.equal(second.status, 201, 'a/b_c is another service, not an update of a_b/c')
    t.not(second.body.id, first.body.id)
    const list = await readAfter(server, '/v2/carrier_services', second.headers.get('x-shiplog-position')!)
    t.equal(list.body.data.length, 2)

    // A service configured when `_` was not escaped: its stream has the legacy name, and it is updated there.
    const configured = await server.request('PUT', '/v2/carrier_services/other/one', { body: colissimo })
    const [event] = await server.runtime.eventStore.readStream(carrierServiceStream(server.accountId, 'other', 'one'))
    const legacy = legacyCarrierServiceStream(server.accountId, 'dhl_express', 'home')
    t.not(carrierServiceStream(server.accountId, 'dhl_express', 'home'), legacy)
    const old = {
      ...(event!.data as object),
      carrier_service_id: 42,
      carrier_code: 'dhl_express',
      service_code: 'home',
    }
    await server.runtime.eventStore.append([
      {
        stream: legacy,
        expected: 'no_stream',
        events: toNewEvents([{ type: 'CarrierServiceConfigured', data: old } as DomainEvent], {
          accountId: server.accountId,
          correlationId: 'legacy',
          recordedAt: 0,
        }),
      },
    ])
    const updated = await server.request('PUT', '/v2/carrier_services/dhl_express/home', {
      body: { ...colissimo, cutoff_time: '16:00' },
    })
    t.equal(updated.status, 200, 'an update of the service configured before, in its legacy stream')
    t.match(updated.body, { id: 42, cutoff_time: '16:00' })
    t.equal(configured.status, 201)
  },
)
