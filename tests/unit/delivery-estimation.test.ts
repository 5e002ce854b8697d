import t from 'tap'
import type { CarrierServiceDoc } from '../../projectors/carrier-services/carrier-service.ts'
import { bestEstimation, estimateService, transitDays } from '../../shared/domain/delivery/estimate.ts'

const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const
const service = (over: Partial<CarrierServiceDoc> = {}): CarrierServiceDoc => ({
  id: 1,
  carrier_code: 'colissimo',
  service_code: 'home',
  name: 'Colissimo Home',
  created_at: 0,
  updated_at: 0,
  transit_days: [
    { origin: 'FR', destination: 'FR', days: 2 },
    { origin: null, destination: null, days: 5 },
  ],
  cutoff_time: '14:00',
  time_zone: 'Europe/Paris',
  pickup_days: [...weekdays],
  delivery_days: [...weekdays],
  ...over,
})
const lane = { origin: { country_code: 'FR' }, destination: { country_code: 'FR' } }
// 2026-11-20 is a Friday; Paris is UTC+1 in November.
const friday = (utc: string) => new Date(`2026-11-20T${utc}Z`)

t.test('shipped Monday with 2 days arrives Wednesday', async (t) => {
  const e = estimateService(service(), { ...lane, merchant_shipping_date: '2026-11-23' }, friday('10:00:00'))!
  t.equal(e.delivery_date, '2026-11-25')
  t.equal(e.safe_delivery_date, '2026-11-26', 'never earlier than delivery + 1 day')
  t.equal(e.cutoff_datetime_utc, '2026-11-23T13:00:00.000Z')
})

t.test('a Friday before and after the cutoff', async (t) => {
  const before = estimateService(service(), lane, friday('12:59:00'))!
  t.match(
    before,
    { delivery_date: '2026-11-24', cutoff_datetime_utc: '2026-11-20T13:00:00.000Z' },
    'ships Friday: Monday, Tuesday',
  )
  const after = estimateService(service(), lane, friday('13:00:00'))!
  t.match(after, { delivery_date: '2026-11-25', cutoff_datetime_utc: '2026-11-23T13:00:00.000Z' }, 'ships Monday')
})

t.test('public holidays of the lane are skipped, for pickup and for delivery', async (t) => {
  // 2026-12-25 (Friday) is a public holiday in France.
  const christmasEve = estimateService(
    service({ transit_days: [{ origin: 'FR', destination: 'FR', days: 1 }] }),
    { ...lane, merchant_shipping_date: '2026-12-24' },
    friday('10:00:00'),
  )!
  t.equal(christmasEve.delivery_date, '2026-12-28')
  const onChristmas = estimateService(service(), { ...lane, merchant_shipping_date: '2026-12-25' }, friday('10:00:00'))!
  t.equal(onChristmas.cutoff_datetime_utc, '2026-12-28T13:00:00.000Z', 'no pickup on the holiday')
  t.equal(onChristmas.delivery_date, '2026-12-30')
  const toGermany = estimateService(
    service(),
    { origin: { country_code: 'FR' }, destination: { country_code: 'DE' }, merchant_shipping_date: '2026-12-24' },
    friday('10:00:00'),
  )!
  t.equal(
    toGermany.delivery_date,
    '2027-01-04',
    '5 days default lane, skipping 25 Dec (FR, DE), 26 Dec weekend and 1 Jan',
  )
})

t.test('a lane without a specific entry uses the most specific default', async (t) => {
  const s = service({
    transit_days: [
      { origin: 'FR', destination: 'FR', days: 2 },
      { origin: 'FR', destination: null, days: 3 },
      { origin: null, destination: null, days: 6 },
    ],
  })
  t.equal(transitDays(s, 'FR', 'FR'), 2)
  t.equal(transitDays(s, 'FR', 'IT'), 3)
  t.equal(transitDays(s, 'DE', 'IT'), 6)
  t.equal(transitDays(s), 6, 'nothing asked: the default lane')
  t.equal(transitDays(service({ transit_days: [{ origin: 'FR', destination: 'FR', days: 2 }] }), 'DE', 'FR'), undefined)
  t.equal(
    estimateService(
      service({ transit_days: [{ origin: 'FR', destination: 'FR', days: 2 }] }),
      { origin: { country_code: 'DE' } },
      friday('10:00:00'),
    ),
    undefined,
    'no lane, no estimate',
  )
})

t.test('time zones across the date line', async (t) => {
  const noon = new Date('2026-11-20T12:00:00Z')
  // In Auckland (UTC+13) it is already Saturday 01:00: the next pickup is Monday.
  const auckland = estimateService(
    service({ time_zone: 'Pacific/Auckland' }),
    { merchant_shipping_date: undefined },
    noon,
  )!
  t.equal(auckland.cutoff_datetime_utc, '2026-11-23T01:00:00.000Z')
  t.equal(auckland.delivery_date, '2026-11-30')
  // In Honolulu (UTC-10) it is still Friday 02:00, before the cutoff.
  const honolulu = estimateService(service({ time_zone: 'Pacific/Honolulu' }), {}, noon)!
  t.equal(honolulu.cutoff_datetime_utc, '2026-11-21T00:00:00.000Z')
  t.equal(honolulu.delivery_date, '2026-11-27')
})

t.test('the best estimation is chosen deterministically', async (t) => {
  const e = (carrier: string, svc: string, d: string, s: string) => ({
    carrier_code: carrier,
    service_code: svc,
    delivery_date: d,
    safe_delivery_date: s,
    cutoff_datetime_utc: '',
    basis: 'configured' as const,
    sample_size: null,
  })
  t.equal(bestEstimation([]), null)
  t.match(bestEstimation([e('b', 'x', '2026-01-02', '2026-01-03'), e('a', 'x', '2026-01-03', '2026-01-04')]), {
    carrier_code: 'b',
  })
  t.match(bestEstimation([e('b', 'x', '2026-01-02', '2026-01-04'), e('c', 'x', '2026-01-02', '2026-01-03')]), {
    carrier_code: 'c',
  })
  t.match(
    bestEstimation([
      e('b', 'y', '2026-01-02', '2026-01-03'),
      e('b', 'x', '2026-01-02', '2026-01-03'),
      e('c', 'a', '2026-01-02', '2026-01-03'),
    ]),
    { carrier_code: 'b', service_code: 'x' },
  )
})
