import t from 'tap'
import {
  dhlEventType,
  laposteEventCodes,
  laposteEventType,
  trackingApiOf,
} from '../../shared/domain/carriers/tracking-apis.ts'
import {
  EXPIRY_SECONDS,
  isStale,
  MAX_POLL_INTERVAL_SECONDS,
  nextPollInterval,
} from '../../shared/domain/orders/polling.ts'
import { eventTypeCodes } from '../../shared/domain/vocabulary/tracking-codes.ts'
import { dhlApi as dhlAdapter } from '../../shared/infra/carriers/dhl.ts'
import { laposteApi as laposteAdapter } from '../../shared/infra/carriers/laposte.ts'
import { asked, DHL_KEY, LAPOSTE_KEY, startCarrierServer } from '../support/carrier-api.ts'

const dhlApi = (config: { url: string; key: string }) => asked(dhlAdapter(config))
const laposteApi = (config: { url: string; key: string }) => asked(laposteAdapter(config))

/*
 * The carrier adapters against a local HTTP server answering with each
 * API's documented shapes (not against DHL or La Poste themselves), and the
 * mapping of every status and code onto the event vocabulary.
 */

t.test('every DHL status code reads as an event type', async (t) => {
  t.same(['pre-transit', 'transit', 'delivered', 'failure', 'unknown', 'something-new'].map(dhlEventType), [
    'label_created',
    'transit',
    'delivered',
    'incident',
    null,
    null,
  ])
})

t.test('every La Poste code reads as an event type', async (t) => {
  // Properties of the mapping, and the documented examples, rather than the table again.
  t.ok(laposteEventCodes.length > 0)
  for (const code of laposteEventCodes) {
    t.match(code, /^[A-Z]{2}\d$/, `${code} is a La Poste event code`)
    t.ok(eventTypeCodes.includes(laposteEventType(code)!), `${code} maps into the event vocabulary`)
  }
  t.equal(laposteEventType('DR1'), 'label_created', 'the label announced (docs/carrier-polling.md)')
  t.equal(laposteEventType('MD2'), 'out_for_delivery')
  t.equal(laposteEventType('AG1'), 'pickup_point')
  t.equal(laposteEventType('DI1'), 'delivered')
  for (const code of laposteEventCodes.filter((c) => c.startsWith('DI'))) {
    t.ok(['delivered', 'return'].includes(laposteEventType(code)!), `${code}, a distribution code, ends the journey`)
  }
  t.equal(laposteEventType('ZZ9'), null, 'an unknown code is informational')
  t.same(Object.entries(trackingApiOf).sort(), [
    ['chronopost', 'laposte'],
    ['colissimo', 'laposte'],
    ['dhl', 'dhl'],
    ['dhl_express', 'dhl'],
    ['dhl_parcel', 'dhl'],
    ['fedex', 'fedex'],
    ['gls', 'gls'],
    ['laposte', 'laposte'],
    ['postnl', 'postnl'],
    ['royal_mail', 'royal_mail'],
    ['ups', 'ups'],
    ['usps', 'usps'],
  ])
})

t.test('polls back off while nothing changes, at most a day; a change resets; 30 days of silence expire', async (t) => {
  t.equal(nextPollInterval(null, false, 3600), 3600)
  t.equal(nextPollInterval(3600, false, 3600), 7200)
  t.equal(nextPollInterval(7200, true, 3600), 3600)
  t.equal(nextPollInterval(MAX_POLL_INTERVAL_SECONDS, false, 3600), MAX_POLL_INTERVAL_SECONDS)
  t.equal(nextPollInterval(50_000, false, 3600), MAX_POLL_INTERVAL_SECONDS)
  t.notOk(isStale(1000, 1000 + EXPIRY_SECONDS - 1))
  t.ok(isStale(1000, 1000 + EXPIRY_SECONDS))
})

t.test('DHL: events with place and estimate, unknown numbers, rate limits, faults, a refused key', async (t) => {
  const carrier = await startCarrierServer(t)
  const dhl = dhlApi({ url: carrier.url, key: DHL_KEY })
  const found = await dhl.track('JD-OK', 'dhl')
  t.match(found, {
    kind: 'found',
    events: [
      {
        tracking_number: 'JD-OK',
        carrier_code: 'dhl',
        event_type_code: 'transit',
        happened_at: Date.parse('2026-11-23T09:30:00Z') / 1000,
        message: 'Arrived at the sorting center',
        address: { city: 'Leipzig', zip: '04435', country_code: 'DE' },
        expected_delivery_at: Date.parse('2026-11-25T18:00:00Z') / 1000,
      },
      { event_type_code: 'label_created', expected_delivery_at: null },
    ],
  })
  t.same(await dhl.track('JD-404', 'dhl'), { kind: 'unknown' })
  t.same(await dhl.track('JD-429', 'dhl'), { kind: 'rate_limited', retryAfterMs: 1000 })
  t.equal((await dhl.track('JD-429', 'dhl')).kind, 'found', 'then it answers')
  t.same(await dhl.track('JD-500', 'dhl'), { kind: 'failed', error: 'answered 500' })
  t.match(await dhl.track('JD-BAD', 'dhl'), { kind: 'failed', error: /malformed/ })
  t.match(await dhlApi({ url: carrier.url, key: 'wrong' }).track('JD-OK', 'dhl'), { kind: 'unauthorized' })
  t.match(await dhlApi({ url: 'http://127.0.0.1:1', key: DHL_KEY }).track('JD-OK', 'dhl'), { kind: 'failed' })
})

t.test('La Poste: French labels kept, unknown numbers, rate limits, faults, a refused key', async (t) => {
  const carrier = await startCarrierServer(t)
  carrier.laposteCodes.set('6A-OK', ['DI1', 'MD2', 'PC1'])
  const laposte = laposteApi({ url: carrier.url, key: LAPOSTE_KEY })
  t.match(await laposte.track('6A-OK', 'colissimo'), {
    kind: 'found',
    events: [
      {
        event_type_code: 'delivered',
        message: 'Libellé DI1',
        messages: { fr: 'Libellé DI1' },
        carrier_code: 'colissimo',
      },
      { event_type_code: 'out_for_delivery' },
      { event_type_code: 'origin_scan', happened_at: Date.parse('2026-11-21T07:00:00Z') / 1000 },
    ],
  })
  t.same(await laposte.track('6A-404', 'colissimo'), { kind: 'unknown' })
  t.same(await laposte.track('6A-429', 'colissimo'), { kind: 'rate_limited', retryAfterMs: 1000 })
  t.same(await laposte.track('6A-500', 'colissimo'), { kind: 'failed', error: 'answered 500' })
  t.match(await laposte.track('6A-BAD', 'colissimo'), { kind: 'failed', error: /malformed/ })
  t.match(await laposteApi({ url: carrier.url, key: 'wrong' }).track('6A-OK', 'colissimo'), { kind: 'unauthorized' })
})
