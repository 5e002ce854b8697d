import t from 'tap'
import { orderCreated } from '../support/orders.ts'
import { learnedFor, mode, quantile, transitHistoryOf } from '../../shared/domain/delivery/history.ts'
import { businessDaysBetween, WORKING_WEEK } from '../../shared/domain/delivery/business-days.ts'
import {
  applyContribution,
  applyPrefixContribution,
  contributionOf,
  emptyBucket,
  emptyPrefixBucket,
} from '../../shared/domain/delivery/sums.ts'
import { evolveDeliveryFacts, mayChangeDeliveryFacts } from '../../shared/domain/delivery/facts.ts'
import { isoWeek, performanceRows, promiseGapsOf } from '../../shared/domain/delivery/performance.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import type { OrderChanges } from '../../shared/domain/events/resources.ts'

/* The delivery history, pure: an order's events folded to its parcels' facts, their sums, what they teach. */

const at = (iso: string) => Math.floor(Date.parse(iso) / 1000)
const created = orderCreated(100, {
  shipping_address: { id: 9, country_code: 'FR', zip: '75 002', state: null },
} as OrderChanges)
const tracker = {
  type: 'TrackerCreated',
  data: {
    tracker_id: 3,
    uuid: '00000000-0000-4000-8000-000000000003',
    fulfillment_id: 2,
    tracking_number: 'TN',
    changes: {
      carrier: { code: 'colissimo', name: 'Colissimo' },
      carrier_service: { id: 1, code: 'home', name: 'Home' },
    },
    at: 100,
  },
} as unknown as OrderEvent
const updated = (changes: object): OrderEvent =>
  ({ type: 'TrackerUpdated', data: { tracker_id: 3, changes, at: 200 } }) as OrderEvent
const scan = (code: string, iso: string, country?: string): OrderEvent =>
  ({
    type: 'TrackingEventRecorded',
    data: {
      tracker_id: 3,
      event: {
        id: 1,
        key: iso,
        event_type_code: code,
        happened_at: at(iso),
        address: country ? { country_code: country } : null,
      },
      at: 200,
    },
  }) as unknown as OrderEvent
const fold = (events: OrderEvent[]) => events.reduce(evolveDeliveryFacts, undefined as never)

t.test('given an order shipped and delivered, its parcel contributes once, on the day it was delivered', async (t) => {
  const facts = fold([
    created,
    tracker,
    updated({ displayable_expected_delivery_date: '2026-11-04' }),
    scan('origin_scan', '2026-11-02T08:00:00Z', 'FR'),
    updated({ shipped_at: at('2026-11-02T08:00:00Z') }),
    scan('failed_attempt', '2026-11-05T09:00:00Z'),
    scan('delivered', '2026-11-06T23:30:00Z'),
    updated({ delivered_at: at('2026-11-06T23:30:00Z') }),
  ])
  t.same(contributionOf(facts, facts.parcels[0]!), {
    carrier_code: 'colissimo',
    service_code: 'home',
    origin: 'FR',
    destination: 'FR',
    prefix: '75',
    failed_attempt: true,
    exception: false,
    // 23:30 UTC is already Saturday in Paris, the destination's zone.
    ended_on: '2026-11-07',
    shipped_on: '2026-11-02',
    delivered: true,
    on_time: false,
    // Promised for Wednesday the 4th, delivered on Saturday the 7th.
    promise_gap: 3,
    returned: false,
  })
})

t.test(
  'an event said not to change the facts leaves them as they were; the others it names do change them',
  async (t) => {
    // Given a parcel shipped to an order in France, with a first scan in France
    const facts = fold([
      created,
      tracker,
      scan('origin_scan', '2026-11-02T08:00:00Z', 'FR'),
      updated({ shipped_at: at('2026-11-02T08:00:00Z') }),
    ])
    const status = (to: string): OrderEvent =>
      ({
        type: 'TrackerStatusChanged',
        data: { tracker_id: 3, from: 'in_transit', to, happened_at: at('2026-11-03T08:00:00Z'), at: 300 },
      }) as unknown as OrderEvent
    const address = (type: string, shipping_address: object | null | undefined): OrderEvent =>
      ({
        type,
        data: { fulfillment_id: 2, changes: shipping_address === undefined ? {} : { shipping_address }, at: 300 },
      }) as unknown as OrderEvent
    const elsewhere = { id: 8, country_code: 'BE', zip: '1000', state: null }
    const withFirsts = (event: OrderEvent, firsts: string[]) =>
      ({ ...event, data: { ...(event.data as object), firsts } }) as OrderEvent
    const unchanged = [
      withFirsts(scan('transit', '2026-11-03T08:00:00Z', 'FR'), []),
      status('out_for_delivery'),
      updated({ first_delivery_attempted_at: at('2026-11-03T08:00:00Z') }),
      address('OrderUpdated', undefined),
      address('FulfillmentCreated', null),
      address('FulfillmentUpdated', undefined),
    ]
    const changing = [
      withFirsts(scan('transit', '2026-11-01T08:00:00Z', 'BE'), ['origin']),
      withFirsts(scan('failed_attempt', '2026-11-03T08:00:00Z'), ['failed_attempt']),
      // Recorded before scans kept their firsts: read and folded as before.
      scan('incident', '2026-11-03T08:00:00Z'),
      status('returned'),
      updated({ delivered_at: at('2026-11-04T08:00:00Z') }),
      updated({ displayable_expected_delivery_date: '2026-11-05' }),
      updated({ carrier_service: null }),
      address('OrderUpdated', elsewhere),
      address('FulfillmentUpdated', elsewhere),
    ]
    for (const event of unchanged) {
      // When it is folded, then the facts are the same, and the predicate said so
      t.notOk(mayChangeDeliveryFacts(event), `${event.type} ${JSON.stringify(event.data)} is passed over`)
      t.same(evolveDeliveryFacts(facts, event), facts)
    }
    for (const event of changing) {
      t.ok(mayChangeDeliveryFacts(event), `${event.type} ${JSON.stringify(event.data)} is folded`)
      t.notSame(evolveDeliveryFacts(facts, event), facts)
    }
  },
)

t.test('given a parcel not yet ended, or without a carrier, it contributes nothing', async (t) => {
  const shipped = fold([created, tracker, updated({ shipped_at: at('2026-11-02T08:00:00Z') })])
  t.equal(contributionOf(shipped, shipped.parcels[0]!), undefined)
  const noCarrier = fold([created, { ...tracker, data: { ...(tracker.data as object), changes: {} } } as OrderEvent])
  t.equal(contributionOf(noCarrier, noCarrier.parcels[0]!), undefined)
})

t.test(
  'given a fulfillment with an address of its own, its parcels end there; its latest address counts',
  async (t) => {
    const fulfillment = (type: string, country: string, zip: string, state: string): OrderEvent =>
      ({
        type,
        data: {
          fulfillment_id: 2,
          changes: { shipping_address: { id: 8, country_code: country, zip, state } },
          at: 100,
        },
      }) as unknown as OrderEvent
    // 03:00 UTC on 6 November: the 6th in Paris, the order's address, and still the 5th in New York and Montreal.
    const delivered = [
      updated({ shipped_at: at('2026-11-02T08:00:00Z') }),
      updated({ delivered_at: at('2026-11-06T03:00:00Z') }),
    ]

    // Given an order to Paris whose fulfillment ships to New York, when its parcel is delivered
    const toNewYork = fold([created, fulfillment('FulfillmentCreated', 'US', '10001', 'NY'), tracker, ...delivered])
    // Then it ended in the United States, on New York's day
    t.match(contributionOf(toNewYork, toNewYork.parcels[0]!), { destination: 'US', ended_on: '2026-11-05' })

    // When the fulfillment's address is set right before the delivery
    const moved = fold([
      created,
      fulfillment('FulfillmentCreated', 'US', '10001', 'NY'),
      tracker,
      fulfillment('FulfillmentUpdated', 'CA', 'H2X 1Y4', 'QC'),
      ...delivered,
    ])
    // Then the new address replaced the old one
    t.same(moved.fulfillment_destinations, [[2, { country: 'CA', postcode: 'H2X 1Y4', state: 'QC' }]])
    t.match(contributionOf(moved, moved.parcels[0]!), { destination: 'CA', ended_on: '2026-11-05' })
  },
)

t.test('a contribution added then taken back leaves its bucket as it was', async (t) => {
  const facts = fold([
    created,
    tracker,
    updated({ shipped_at: at('2026-11-02T08:00:00Z') }),
    updated({ delivered_at: at('2026-11-05T10:00:00Z') }),
  ])
  const c = contributionOf(facts, facts.parcels[0]!)!
  const bucket = emptyBucket(c)
  applyContribution(bucket, c, 1)
  t.match(bucket, {
    week: '2026-11-02',
    days: { '2026-11-05': { delivered: 1, returned: 0 } },
    transits: { '2026-11-05|2026-11-02': 1 },
  })
  applyContribution(bucket, c, -1)
  t.same(bucket, emptyBucket(c))
  const prefixes = emptyPrefixBucket(c)
  applyPrefixContribution(prefixes, c, 1)
  t.same(prefixes.by_prefix, { '75': { '2026-11-05|2026-11-02': 1 } })
  applyPrefixContribution(prefixes, c, -1)
  t.same(prefixes, emptyPrefixBucket(c))
})

t.test('business days: the carrier’s delivery days after the ship day, holidays of the lane skipped', async (t) => {
  t.equal(businessDaysBetween(WORKING_WEEK, ['FR'], '2026-11-02', '2026-11-06'), 4)
  t.equal(businessDaysBetween(WORKING_WEEK, ['FR'], '2026-11-06', '2026-11-09'), 1, 'over a weekend')
  t.equal(
    businessDaysBetween(WORKING_WEEK, ['FR'], '2026-11-10', '2026-11-12'),
    1,
    '11 November is a holiday in France',
  )
  t.equal(businessDaysBetween(WORKING_WEEK, ['DE'], '2026-11-10', '2026-11-12'), 2, 'not in Germany')
})

t.test('the most likely day, the 95th percentile, and the levels a lane falls back to', async (t) => {
  const d = new Map([
    [2, 55],
    [3, 30],
    [6, 15],
  ])
  t.equal(mode(d), 2)
  t.equal(quantile(d, 0.5), 2)
  t.equal(quantile(d, 0.95), 6)
  const week = (destination: string, n: number, shipped: string) => ({
    ...emptyBucket({
      carrier_code: 'c',
      service_code: 's',
      origin: 'FR',
      destination,
      ended_on: '2026-11-06',
    } as never),
    transits: { [`2026-11-06|${shipped}`]: n, '2026-09-01|2026-08-31': 1000 },
  })
  // 25 parcels to Germany in 4 days; 5 to Belgium in 3: too few of their own; 1000 before the window.
  const histories = transitHistoryOf(
    [week('DE', 25, '2026-11-02'), week('BE', 5, '2026-11-03')],
    [],
    () => WORKING_WEEK,
    { from: '2026-10-01', recentFrom: '2026-10-15' },
  )
  t.match(learnedFor(histories, { carrier_code: 'c', service_code: 's', origin: 'FR', destination: 'DE' }), {
    days: 4,
    sample_size: 25,
    level: 'lane',
  })
  t.match(
    learnedFor(histories, { carrier_code: 'c', service_code: 's', origin: 'FR', destination: 'BE' }),
    { days: 4, sample_size: 30, level: 'service' },
    'Belgium falls back to the whole service',
  )
  t.equal(learnedFor(histories, { carrier_code: 'x', service_code: 's' }), undefined)
})

t.test(
  'performance rows: the days in the range only, grouped, ordered by key, shares of the parcels that ended',
  async (t) => {
    t.equal(isoWeek('2026-11-26'), '2026-W48')
    t.equal(isoWeek('2027-01-01'), '2026-W53')
    t.equal(isoWeek('2026-01-01'), '2026-W01')
    const b = {
      ...emptyBucket({
        carrier_code: 'c',
        service_code: 's',
        origin: 'FR',
        destination: 'FR',
        ended_on: '2026-11-06',
      } as never),
      days: {
        '2026-11-06': { delivered: 9, returned: 1, promised: 8, on_time: 6, failed_attempt: 2, exception: 0 },
        '2026-11-08': { delivered: 50, returned: 0, promised: 0, on_time: 0, failed_attempt: 0, exception: 0 },
      },
      transits: { '2026-11-06|2026-11-02': 5, '2026-11-06|2026-11-03': 4, '2026-11-08|2026-11-02': 50 },
    }
    t.same(
      performanceRows([b], ['carrier', 'week'], () => WORKING_WEEK, { from: '2026-11-01', to: '2026-11-07' }),
      [
        {
          key: 'c|2026-W45',
          group: { carrier: 'c', week: '2026-W45' },
          delivered: 9,
          returned: 1,
          transit_business_days: { p50: 4, p90: 4 },
          on_time_rate: 0.75,
          failed_attempt_rate: 0.2,
          exception_rate: 0,
          returned_rate: 0.1,
        },
      ],
    )
  },
)

t.test('promise gaps: each delivered parcel with a promise counted by its whole days from it, clamped', async (t) => {
  // Given a week's sums and three parcels promised for the 4th, delivered the 2nd, the 4th and the 20th
  const bucket = emptyBucket({
    carrier_code: 'c',
    service_code: 's',
    origin: 'FR',
    destination: 'FR',
    ended_on: '2026-11-02',
  } as never)
  const parcel = (ended_on: string, promise_gap: number | null) =>
    ({
      ended_on,
      shipped_on: '2026-11-01',
      delivered: true,
      promise_gap,
      on_time: promise_gap === null ? null : promise_gap <= 0,
    }) as never
  applyContribution(bucket, parcel('2026-11-02', -2), 1)
  applyContribution(bucket, parcel('2026-11-04', 0), 1)
  applyContribution(bucket, parcel('2026-11-05', 5), 1)
  applyContribution(bucket, parcel('2026-11-05', null), 1)
  // When the gaps are read over the week, then over its first three days
  // Then each is counted once by its gap, a parcel without a promise not at all
  t.same([...promiseGapsOf([bucket], { from: '2026-11-02', to: '2026-11-08' })].sort(), [
    [-2, 1],
    [0, 1],
    [5, 1],
  ])
  t.same([...promiseGapsOf([bucket], { from: '2026-11-02', to: '2026-11-04' })].sort(), [
    [-2, 1],
    [0, 1],
  ])
  // And a contribution taken back leaves nothing of it
  applyContribution(bucket, parcel('2026-11-05', 5), -1)
  t.same(bucket.promise_gaps, { '2026-11-02|-2': 1, '2026-11-04|0': 1 })
  // And one summed before gaps were kept, taken back, takes nothing
  applyContribution(bucket, parcel('2026-11-06', 1), -1)
  t.same(bucket.promise_gaps, { '2026-11-02|-2': 1, '2026-11-04|0': 1 })
})
