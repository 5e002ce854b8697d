import t from 'tap'
import { readFileSync } from 'node:fs'
import { detectCarrier } from '../../shared/domain/carriers/carriers.ts'
import { eventCodesOf, trackingApiOf, trackingApis } from '../../shared/domain/carriers/tracking-apis.ts'
import { decidePoll, MAX_POLLS_PER_DAY, evolvePollState, type PollState } from '../../shared/domain/orders/polling.ts'
import { eventTypeCodes } from '../../shared/domain/vocabulary/tracking-codes.ts'
import { fedexApi } from '../../shared/infra/carriers/fedex.ts'
import { glsApi } from '../../shared/infra/carriers/gls.ts'
import type { CarrierApiAdapter } from '../../shared/infra/carriers/port.ts'
import { postnlApi } from '../../shared/infra/carriers/postnl.ts'
import { royalMailApi } from '../../shared/infra/carriers/royal-mail.ts'
import { upsApi } from '../../shared/infra/carriers/ups.ts'
import { uspsApi } from '../../shared/infra/carriers/usps.ts'
import {
  asked,
  CREDENTIALS,
  detectionCases,
  type CarrierServer,
  POSTNL_KEY,
  startCarrierServer,
} from '../support/carrier-api.ts'

/*
 * The UPS, FedEx, USPS, PostNL, GLS and Royal Mail adapters against a local
 * HTTP server answering with each API's documented request and response
 * shapes (never the carriers themselves); the status tables; detection by
 * number format; the day's budget, batching and the polls a parcel gets a day.
 */

const adapters: Record<string, (url: string, secret?: string) => CarrierApiAdapter> = {
  ups: (url, secret = CREDENTIALS.secret) => upsApi({ url, clientId: CREDENTIALS.id, clientSecret: secret }),
  fedex: (url, secret = CREDENTIALS.secret) => fedexApi({ url, clientId: CREDENTIALS.id, clientSecret: secret }),
  usps: (url, secret = CREDENTIALS.secret) => uspsApi({ url, clientId: CREDENTIALS.id, clientSecret: secret }),
  postnl: (url, secret = POSTNL_KEY) => postnlApi({ url, key: secret }),
  gls: (url, secret = CREDENTIALS.secret) => glsApi({ url, username: CREDENTIALS.id, password: secret }),
  royal_mail: (url, secret = CREDENTIALS.secret) =>
    royalMailApi({ url, clientId: CREDENTIALS.id, clientSecret: secret }),
}
const at = (iso: string) => Date.parse(iso) / 1000

t.test('every status table maps into the event vocabulary; each API serves its carrier codes', async (t) => {
  for (const api of trackingApis) {
    t.ok(Object.keys(eventCodesOf[api]).length > 0, api)
    for (const [code, type] of Object.entries(eventCodesOf[api]))
      t.ok(eventTypeCodes.includes(type), `${api} ${code} → ${type}`)
  }
  t.same(
    ['ups', 'fedex', 'usps', 'postnl', 'gls', 'royal_mail'].map((c) => trackingApiOf[c]),
    ['ups', 'fedex', 'usps', 'postnl', 'gls', 'royal_mail'],
  )
})

for (const [api, adapter] of Object.entries(adapters)) {
  t.test(
    `${api}: events in time order with place, estimate and signature; unknown; 429; 5xx; malformed; refused`,
    async (t) => {
      const carrier: CarrierServer = await startCarrierServer(t)
      const carrierCode = api
      const client = asked(adapter(carrier.url))
      carrier.stage.set('N-OK', 'delivered')
      const found = await client.track('N-OK', carrierCode)
      if (found.kind !== 'found') throw new Error(JSON.stringify(found))
      t.same(
        found.events.map((e) => e.event_type_code),
        ['delivered', 'transit', 'label_created'].map((type) =>
          api === 'royal_mail' && type === 'transit'
            ? 'origin_scan'
            : api === 'fedex' && type === 'transit'
              ? 'transit'
              : type,
        ),
      )
      const [delivered, moved] = found.events
      t.match(delivered, { tracking_number: 'N-OK', carrier_code: carrierCode })
      t.ok(delivered!.happened_at > moved!.happened_at, 'newest first, as each carrier lists them')
      // Every server's delivery is 24 November 2026 at 14:30 local time: 19:30 UTC in the US, 13:30 in Europe, 14:00 in the UK.
      const deliveredAt = {
        ups: '2026-11-24T19:30:00Z',
        fedex: '2026-11-24T19:30:00Z',
        usps: '2026-11-24T19:30:00Z',
        postnl: '2026-11-24T13:30:00Z',
        gls: '2026-11-24T13:30:00Z',
        royal_mail: '2026-11-24T14:00:00Z',
      }[api]!
      t.equal(delivered!.happened_at, at(deliveredAt), 'the time with its zone')
      if (api !== 'postnl') t.match(delivered!.message, / \(signed by \w/, 'the signature where given')
      if (api !== 'postnl' && api !== 'royal_mail') t.ok(delivered!.address?.city, 'the place')
      const onTheWay = await client.track('T-OK', carrierCode)
      t.ok(
        onTheWay.kind === 'found' && onTheWay.events[0]!.expected_delivery_at,
        "the carrier's expected delivery, with the newest event",
      )
      t.same(await client.track('N-404', carrierCode), { kind: 'unknown' })
      if (api !== 'gls' && api !== 'fedex') {
        t.same(await client.track('N-429', carrierCode), { kind: 'rate_limited', retryAfterMs: 1000 })
        t.equal((await client.track('N-429', carrierCode)).kind, 'found', 'then it answers')
        t.match(await client.track('N-BAD', carrierCode), { kind: 'failed', error: /malformed/ })
      }
      t.same(await client.track('N-500', carrierCode), { kind: 'failed', error: 'answered 500' })
      t.match(await asked(adapter(carrier.url, 'wrong')).track('N-OK', carrierCode), { kind: 'unauthorized' })
      t.match(await asked(adapter('http://127.0.0.1:1')).track('N-OK', carrierCode), { kind: 'failed' })
      if (['ups', 'fedex', 'usps'].includes(api)) t.equal(carrier.tokens.get(api), 1, 'one OAuth token, kept')
    },
  )
}

t.test('FedEx carries up to 30 numbers a call and GLS 10; each number gets its own answer', async (t) => {
  const carrier = await startCarrierServer(t)
  const fedex = asked(adapters.fedex!(carrier.url))
  const numbers = Array.from({ length: 35 }, (_, i) => `F${i}-${i === 3 ? '404' : 'OK'}`)
  const results = await Promise.all(numbers.map((n) => fedex.track(n, 'fedex')))
  // The two calls go out together, and either may reach the carrier first.
  const batches = carrier.batches.get('fedex')!
  t.same(
    batches.map((b) => b.length).sort((a, b) => b - a),
    [30, 5],
  )
  t.same(batches.flat().sort(), [...numbers].sort(), 'each number in one call')
  t.equal(results[3]!.kind, 'unknown')
  t.match(results[4], { kind: 'found', events: [{ tracking_number: 'F4-OK' }] })
  const gls = asked(adapters.gls!(carrier.url))
  await Promise.all(['G1-OK', 'G2-OK', 'G3-404'].map((n) => gls.track(n, 'gls')))
  t.same(carrier.batches.get('gls'), [['G1-OK', 'G2-OK', 'G3-404']])
})

t.test('USPS: an eventTimestamp that says its zone is read with it, not made another date', async (t) => {
  const carrier = await startCarrierServer(t)
  const found = await asked(adapters.usps!(carrier.url)).track('U-ZONED', 'usps')
  if (found.kind !== 'found') throw new Error(JSON.stringify(found))
  t.same(
    found.events.map((e) => e.happened_at),
    [at('2026-11-24T19:30:00Z'), at('2026-11-23T14:30:00Z')],
  )
})

t.test("past the day's budget a call is not sent: it waits for the next day", async (t) => {
  const carrier = await startCarrierServer(t)
  const postnl = asked(adapters.postnl!(carrier.url), 2)
  t.equal((await postnl.track('P1-OK', 'postnl')).kind, 'found')
  t.equal((await postnl.track('P2-OK', 'postnl')).kind, 'found')
  const third = await postnl.track('P3-OK', 'postnl')
  t.match(third, { kind: 'rate_limited' })
  t.ok(third.kind === 'rate_limited' && third.retryAfterMs <= 86_400_000)
  t.equal(carrier.requests.get('P3-OK'), undefined, 'never sent')
})

t.test('a number names its carrier where its format is unambiguous', async (t) => {
  for (const [number, code] of detectionCases) t.equal(detectCarrier(number)?.carrier.code ?? null, code, number)
  t.match(detectCarrier('RR123456785GB'), { trackingLink: /royalmail\.com.*RR123456785GB/ })
})

t.test('given ten polls today, a parcel is polled next tomorrow (UTC)', async (t) => {
  const day = Date.UTC(2026, 10, 26) / 1000
  let state: PollState | undefined
  for (let i = 0; i < MAX_POLLS_PER_DAY - 1; i++) {
    const [polled] = decidePoll(
      { type: 'RecordPoll', data: { tracker_id: 1, changed: true, base: 60, at: day + i * 60 } },
      state,
    )
    t.equal(polled!.data.next_poll_at, day + i * 60 + 60, `poll ${i + 1}: the base interval`)
    state = evolvePollState(state, polled!)
  }
  const [tenth] = decidePoll(
    { type: 'RecordPoll', data: { tracker_id: 1, changed: true, base: 60, at: day + 600 } },
    state,
  )
  t.equal(tenth!.data.next_poll_at, day + 86_400, 'the tenth poll of the day waits for the next')
  state = evolvePollState(state, tenth!)
  const [next] = decidePoll(
    { type: 'RecordPoll', data: { tracker_id: 1, changed: true, base: 60, at: day + 86_400 } },
    state,
  )
  t.equal(next!.data.next_poll_at, day + 86_400 + 60, 'a new day counts again')
})

t.test('docs/carrier-polling.md names every code of every table', async (t) => {
  const doc = readFileSync(new URL('../../docs/carrier-polling.md', import.meta.url), 'utf8')
  for (const api of trackingApis)
    for (const [code, type] of Object.entries(eventCodesOf[api]))
      t.ok(doc.includes(`\`${code}\``) || api === 'laposte', `${api} ${code} (${type})`)
})
