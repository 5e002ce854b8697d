import t from 'tap'
import { expectedSource } from '../../console/html.ts'
import type { Estimation } from '../../shared/domain/delivery/estimate.ts'

/* The order page's words for where a parcel's expected date comes from. */

const estimation = (overrides: Partial<Estimation>): Estimation => ({
  carrier_code: 'colissimo',
  service_code: 'home',
  delivery_date: '2026-03-14',
  safe_delivery_date: '2026-03-15',
  cutoff_datetime_utc: '2026-03-10T13:00:00.000Z',
  basis: 'history',
  sample_size: 312,
  ...overrides,
})

t.test('a learned promise names its usual days and how many parcels taught them', async (t) => {
  t.equal(expectedSource('promise', estimation({})), 'learned: usually 14–15 Mar, from 312 similar parcels')
  t.equal(
    expectedSource('promise', estimation({ delivery_date: '2026-03-30', safe_delivery_date: '2026-04-02' })),
    'learned: usually 30 Mar – 2 Apr, from 312 similar parcels',
    'across two months, each day with its month',
  )
  t.equal(
    expectedSource('promise', estimation({ safe_delivery_date: '2026-03-14' })),
    'learned: usually 14 Mar, from 312 similar parcels',
  )
})

t.test('a promise from the configured days, the carrier’s date and the shop’s say so', async (t) => {
  t.equal(
    expectedSource('promise', estimation({ basis: 'configured', sample_size: null })),
    'promised from the service’s transit days',
  )
  t.equal(expectedSource('promise', undefined), 'shiplog’s promise', 'a service no longer configured')
  t.equal(expectedSource('carrier', undefined), 'the carrier’s estimate')
  t.equal(expectedSource('merchant', undefined), 'the shop’s date')
})
