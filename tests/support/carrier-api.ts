import { once } from 'node:events'
import { createServer } from 'node:http'
import type { Test } from 'tap'
import { carrierCalls } from '../../shared/infra/carriers/calls.ts'
import type { CarrierLedger } from '../../shared/infra/carriers/ledger.ts'
import type { CarrierApiAdapter } from '../../shared/infra/carriers/port.ts'

/*
 * A local HTTP server answering with the documented request and response
 * shapes of DHL Shipment Tracking – Unified, La Poste Suivi v2, the UPS Track
 * API, the FedEx Track API, USPS Tracking v3, PostNL Shipment Status v2, GLS
 * Track and Trace and Royal Mail Tracking v2 (never the carriers themselves),
 * by tracking number: *-OK: a shipment with its events; *-404: unknown;
 * *-429: rate limited once (Retry-After: 1), then OK; *-500: a server error;
 * *-BAD: malformed JSON. Wrong credentials answer 401. Every request is
 * counted by tracking number, each call by API, each token fetched by API.
 * The six APIs added for UPS to Royal Mail answer by the parcel's `stage`.
 */

export const DHL_KEY = 'dhl-test-key'
export const LAPOSTE_KEY = 'laposte-test-key'

export const dhlShipment = {
  shipments: [
    {
      id: 'x',
      estimatedTimeOfDelivery: '2026-11-25T18:00:00Z',
      events: [
        {
          timestamp: '2026-11-23T09:30:00Z',
          statusCode: 'transit',
          status: 'In transit',
          description: 'Arrived at the sorting center',
          location: { address: { addressLocality: 'Leipzig', postalCode: '04435', countryCode: 'DE' } },
        },
        {
          timestamp: '2026-11-22T16:00:00Z',
          statusCode: 'pre-transit',
          status: 'Label created',
          description: 'Shipment information received',
        },
      ],
    },
  ],
}

/** Each code happens on its own day, whatever else is listed: a code answered again is the same event. */
const dayOf = (code: string) => 20 + Math.max(0, ['DR1', 'PC1', 'ET1', 'MD2', 'AG1', 'DI1'].indexOf(code))

/** La Poste's answer, its events newest first as La Poste lists them. */
export const laposteShipment = (codes: readonly string[]) => ({
  lang: 'fr_FR',
  shipment: {
    idShip: 'x',
    isFinal: codes.includes('DI1'),
    event: codes.map((code) => ({
      code,
      label: `Libellé ${code}`,
      date: new Date(Date.UTC(2026, 10, dayOf(code), 7, 0)).toISOString().replace('T07:00:00.000Z', 'T08:00:00+01:00'),
    })),
  },
})

export interface CarrierServer {
  url: string
  requests: Map<string, number>
  /** La Poste codes answered for a number ending in -OK (newest first as La Poste lists them). */
  laposteCodes: Map<string, string[]>
  /** How far a parcel of the six other APIs has gone: `transit` unless set. */
  stage: Map<string, 'transit' | 'delivered'>
  /** Calls by API, and the numbers each FedEx and GLS call carried. */
  calls: Map<string, number>
  batches: Map<string, string[][]>
  /** OAuth tokens issued, by API. */
  tokens: Map<string, number>
  /** DHL and La Poste numbers answered 503 while here: the carrier's outage. */
  down: Set<string>
}

/** Numbers and the carrier their format names (null: none, or two carriers' formats accept it). */
export const detectionCases: readonly [number: string, carrier: string | null][] = [
  ['1Z999AA10123456784', 'ups'],
  ['9400111899223100000000', 'usps'],
  ['123456789012', 'fedex'],
  ['6A12345678901', 'colissimo'],
  ['CB123456785FR', 'colissimo'],
  ['EE123456785FR', 'chronopost'],
  ['RR123456785GB', 'royal_mail'],
  // Royal Mail's own format: any two letters, nine digits with the S10 check digit, GB.
  ['AB123456785GB', 'royal_mail'],
  ['ab 1234 5678 5gb', 'royal_mail'],
  ['ZQ000000005GB', 'royal_mail'],
  ['LX123456785NL', 'postnl'],
  ['3SABCD1234567', 'postnl'],
  ['JVGL12345678901234567', 'dhl_parcel'],
  ['05212345678901', 'dpd'],
  ['12345678901', 'gls'],
  // DHL Paket's SSCC that USPS's format also accepts: two carriers, so none.
  ['00340434123456789012', null],
  // An S10 number whose check digit is wrong.
  ['RR123456789GB', null],
  ['AB123456789GB', null],
  ['hello', null],
]

export const CREDENTIALS = { id: 'client-id', secret: 'client-secret' }
export const POSTNL_KEY = 'postnl-key'

const uspsAnswer = (n: string, delivered: boolean) => ({
  trackingNumber: n,
  expectedDeliveryTimeStamp: '2026-11-25T20:00:00Z',
  trackingEvents: [
    ...(delivered
      ? [
          {
            eventType: 'Delivered, In/At Mailbox',
            eventCode: '01',
            name: 'J SMITH',
            eventTimestamp: '2026-11-24T14:30:00',
            GMTTimestamp: '2026-11-24T19:30:00Z',
            GMTOffset: '-05:00',
            eventCity: 'NEW YORK',
            eventState: 'NY',
            eventZIPCode: '10001',
            eventCountry: '',
          },
        ]
      : []),
    {
      eventType: 'Arrived at USPS Regional Facility',
      eventCode: '10',
      eventTimestamp: '2026-11-23T09:30:00',
      GMTTimestamp: '2026-11-23T14:30:00Z',
      GMTOffset: '-05:00',
      eventCity: 'JERSEY CITY',
      eventState: 'NJ',
      eventZIPCode: '07097',
      eventCountry: '',
    },
    {
      eventType: 'Shipping Label Created, USPS Awaiting Item',
      eventCode: 'MA',
      eventTimestamp: '2026-11-22T16:00:00',
      GMTTimestamp: '2026-11-22T21:00:00Z',
      GMTOffset: '-05:00',
      eventCity: 'BOSTON',
      eventState: 'MA',
      eventZIPCode: '02101',
      eventCountry: '',
    },
  ],
})

/** USPS events that say their zone in eventTimestamp itself, without GMTTimestamp: as some answers carry them. */
const uspsLocalTimesZoned = (n: string) => ({
  trackingNumber: n,
  trackingEvents: [
    { eventType: 'Delivered', eventCode: '01', eventTimestamp: '2026-11-24T14:30:00-05:00', eventCity: 'NEW YORK' },
    { eventType: 'Arrived at USPS Regional Facility', eventCode: '10', eventTimestamp: '2026-11-23T14:30:00Z' },
  ],
})

const ISO = (day: number, hour: number) => new Date(Date.UTC(2026, 10, day, hour)).toISOString()
/** Each API's answer for a parcel at a stage, in that API's documented shape (events newest first). */
const answers = {
  ups: (n: string, delivered: boolean) => ({
    trackResponse: {
      shipment: [
        {
          inquiryNumber: n,
          package: [
            {
              trackingNumber: n,
              deliveryDate: [{ type: delivered ? 'DEL' : 'SDD', date: '20261125' }],
              deliveryInformation: delivered ? { receivedBy: 'JANE' } : undefined,
              activity: [
                ...(delivered
                  ? [
                      {
                        location: {
                          address: { city: 'ATLANTA', stateProvince: 'GA', postalCode: '30301', countryCode: 'US' },
                        },
                        status: { type: 'D', description: 'DELIVERED', code: 'KB' },
                        date: '20261124',
                        time: '143000',
                        gmtOffset: '-05:00',
                      },
                    ]
                  : []),
                {
                  location: { address: { city: 'LOUISVILLE', stateProvince: 'KY', countryCode: 'US' } },
                  status: { type: 'I', description: 'Departed from Facility', code: 'DP' },
                  date: '20261123',
                  time: '093000',
                  gmtOffset: '-05:00',
                },
                {
                  status: { type: 'M', description: 'Shipper created a label', code: 'MP' },
                  date: '20261122',
                  time: '160000',
                  gmtOffset: '-05:00',
                },
              ],
            },
          ],
        },
      ],
    },
  }),
  fedex: (n: string, delivered: boolean) => ({
    trackingNumber: n,
    trackResults: [
      {
        trackingNumberInfo: { trackingNumber: n },
        dateAndTimes: [{ type: 'ESTIMATED_DELIVERY', dateTime: '2026-11-25T20:00:00-05:00' }],
        deliveryDetails: delivered ? { receivedByName: 'J.SMITH' } : undefined,
        scanEvents: [
          ...(delivered
            ? [
                {
                  date: '2026-11-24T14:30:00-05:00',
                  eventType: 'DL',
                  eventDescription: 'Delivered',
                  scanLocation: { city: 'MEMPHIS', stateOrProvinceCode: 'TN', postalCode: '38116', countryCode: 'US' },
                },
              ]
            : []),
          {
            date: '2026-11-23T09:30:00-05:00',
            eventType: 'AR',
            eventDescription: 'Arrived at FedEx location',
            scanLocation: { city: 'MEMPHIS', countryCode: 'US' },
          },
          {
            date: '2026-11-22T16:00:00-05:00',
            eventType: 'OC',
            eventDescription: 'Shipment information sent to FedEx',
            scanLocation: {},
          },
        ],
      },
    ],
  }),
  usps: (n: string, delivered: boolean) => (n.includes('ZONED') ? uspsLocalTimesZoned(n) : uspsAnswer(n, delivered)),
  postnl: (n: string, delivered: boolean) => {
    const statuses = [
      ...(delivered
        ? [
            {
              TimeStamp: '24-11-2026 14:30:00',
              StatusCode: '11',
              StatusDescription: 'Zending afgeleverd',
              PhaseCode: '4',
              PhaseDescription: 'Afgeleverd',
            },
          ]
        : []),
      {
        TimeStamp: '23-11-2026 09:30:00',
        StatusCode: '5',
        StatusDescription: 'Zending gesorteerd',
        PhaseCode: '2',
        PhaseDescription: 'Sortering',
      },
      {
        TimeStamp: '22-11-2026 16:00:00',
        StatusCode: '1',
        StatusDescription: 'Zending voorgemeld',
        PhaseCode: '1',
        PhaseDescription: 'Collectie',
      },
    ]
    const [Status, ...OldStatuses] = statuses
    return {
      CompleteStatus: {
        Shipment: [
          {
            Barcode: n,
            Expectation: { ETAFrom: '2026-11-25T09:00:00', ETATo: '2026-11-25T12:00:00' },
            Status,
            OldStatuses,
          },
        ],
      },
    }
  },
  gls: (n: string, delivered: boolean) => ({
    requested: n,
    unitno: `U${n}`,
    status: delivered ? 'DELIVERED' : 'INTRANSIT',
    deliveryDate: '2026-11-25T18:00:00+0100',
    signature: delivered ? { name: 'MUELLER' } : undefined,
    events: [
      ...(delivered
        ? [
            {
              code: 'DELIVERED',
              description: 'The parcel has been delivered.',
              eventDateTime: '2026-11-24T14:30:00+0100',
              city: 'Neuenstein',
              postalCode: '36286',
              country: 'DE',
            },
          ]
        : []),
      {
        code: 'INTRANSIT',
        description: 'The parcel has left the parcel center.',
        eventDateTime: '2026-11-23T09:30:00+0100',
        city: 'Bad Hersfeld',
        postalCode: '36251',
        country: 'DE',
      },
      {
        code: 'PREADVICE',
        description: 'The parcel data was entered into the GLS IT system.',
        eventDateTime: '2026-11-22T16:00:00+0100',
        country: 'DE',
      },
    ],
  }),
  royal_mail: (n: string, delivered: boolean) => ({
    mailPieces: {
      mailPieceId: n,
      carrierShortName: 'RM',
      estimatedDelivery: {
        date: '2026-11-25',
        startOfEstimatedWindow: '08:00:00+00:00',
        endOfEstimatedWindow: '18:00:00+00:00',
      },
      signature: delivered ? { recipientName: 'SMITH' } : undefined,
      events: [
        ...(delivered
          ? [
              {
                eventCode: 'EVKSP',
                eventName: 'Delivered',
                eventDateTime: ISO(24, 14).replace('.000Z', '+00:00'),
                locationName: 'Chester DO',
              },
            ]
          : []),
        {
          eventCode: 'EVNMI',
          eventName: 'Item Received',
          eventDateTime: ISO(23, 9).replace('.000Z', '+00:00'),
          locationName: 'Warrington MC',
        },
        {
          eventCode: 'EVAIP',
          eventName: 'Sender despatching item',
          eventDateTime: ISO(22, 16).replace('.000Z', '+00:00'),
        },
      ],
    },
  }),
}

/** The routes of the six APIs: which API a path is, its numbers, and the credentials it expects. */
function routeOf(
  method: string,
  path: string,
): { api: keyof typeof answers | 'token'; numbers: string[]; tokenOf?: string } | undefined {
  const tail = (prefix: string, suffix = '') =>
    path.startsWith(prefix) && path.endsWith(suffix)
      ? decodeURIComponent(path.slice(prefix.length, path.length - suffix.length))
      : undefined
  if (method === 'POST' && ['/security/v1/oauth/token', '/oauth/token', '/oauth2/v3/token'].includes(path))
    return {
      api: 'token',
      numbers: [],
      tokenOf: { '/security/v1/oauth/token': 'ups', '/oauth/token': 'fedex', '/oauth2/v3/token': 'usps' }[path],
    }
  const ups = tail('/api/track/v1/details/')
  if (ups !== undefined) return { api: 'ups', numbers: [ups] }
  if (method === 'POST' && path === '/track/v1/trackingnumbers') return { api: 'fedex', numbers: [] }
  const usps = tail('/tracking/v3/tracking/')
  if (usps !== undefined) return { api: 'usps', numbers: [usps] }
  const postnl = tail('/shipment/v2/status/barcode/')
  if (postnl !== undefined) return { api: 'postnl', numbers: [postnl] }
  const gls = tail('/public/v1/tracking/references/')
  if (gls !== undefined) return { api: 'gls', numbers: gls.split(',') }
  const royalMail = tail('/mailpieces/v2/', '/events')
  if (royalMail !== undefined) return { api: 'royal_mail', numbers: [royalMail] }
  return undefined
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

/** Whether a request to one of the six APIs carries the credentials that API documents. */
function authorized(
  api: string,
  headers: Record<string, string | string[] | undefined>,
  form: URLSearchParams,
  tokenOf?: string,
) {
  if (api === 'token') {
    if (form.get('grant_type') !== 'client_credentials') return false
    if (tokenOf === 'ups') return headers.authorization === basic(CREDENTIALS.id, CREDENTIALS.secret)
    if (tokenOf === 'usps' && form.get('scope') !== 'tracking') return false
    return form.get('client_id') === CREDENTIALS.id && form.get('client_secret') === CREDENTIALS.secret
  }
  if (api === 'ups')
    return headers.authorization === 'Bearer token-ups' && Boolean(headers.transid) && Boolean(headers.transactionsrc)
  if (api === 'fedex' || api === 'usps') return headers.authorization === `Bearer token-${api}`
  if (api === 'postnl') return headers.apikey === POSTNL_KEY
  if (api === 'gls') return headers.authorization === basic(CREDENTIALS.id, CREDENTIALS.secret)
  return (
    headers['x-ibm-client-id'] === CREDENTIALS.id &&
    headers['x-ibm-client-secret'] === CREDENTIALS.secret &&
    headers['x-accept-rmg-terms'] === 'yes'
  )
}

export async function startCarrierServer(t: Test): Promise<CarrierServer> {
  const requests = new Map<string, number>()
  const laposteCodes = new Map<string, string[]>()
  const stage = new Map<string, 'transit' | 'delivered'>()
  const calls = new Map<string, number>()
  const batches = new Map<string, string[][]>()
  const tokens = new Map<string, number>()
  const down = new Set<string>()
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    const route = routeOf(request.method ?? 'GET', url.pathname)
    if (route) {
      let text = ''
      for await (const chunk of request) text += chunk
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers })
        response.end(typeof body === 'string' ? body : JSON.stringify(body))
      }
      const form = new URLSearchParams(route.api === 'token' ? text : '')
      if (!authorized(route.api, request.headers, form, route.tokenOf))
        return send(401, { errors: [{ code: '401', message: 'Unauthorized' }] })
      if (route.api === 'token') {
        tokens.set(route.tokenOf!, (tokens.get(route.tokenOf!) ?? 0) + 1)
        return send(200, { access_token: `token-${route.tokenOf}`, token_type: 'Bearer', expires_in: 3599 })
      }
      const numbers =
        route.api === 'fedex'
          ? (JSON.parse(text).trackingInfo as { trackingNumberInfo: { trackingNumber: string } }[]).map(
              (i) => i.trackingNumberInfo.trackingNumber,
            )
          : route.numbers
      calls.set(route.api, (calls.get(route.api) ?? 0) + 1)
      if (route.api === 'fedex' || route.api === 'gls')
        batches.set(route.api, [...(batches.get(route.api) ?? []), numbers])
      let first = false
      for (const n of numbers) {
        const seen = (requests.get(n) ?? 0) + 1
        requests.set(n, seen)
        first ||= seen === 1
      }
      const [one] = numbers
      if (numbers.length === 1) {
        if (one!.endsWith('-404'))
          return send(404, { errors: [{ code: 'NOT_FOUND', message: 'Tracking Information Not Found' }] })
        if (one!.endsWith('-500')) return send(500, { errors: [{ code: 'INTERNAL', message: 'Internal error' }] })
        if (one!.endsWith('-BAD')) return send(200, '{"trackResponse": {')
        if (one!.endsWith('-429') && first)
          return send(429, { errors: [{ code: '429', message: 'Too many requests' }] }, { 'retry-after': '1' })
      }
      const known = numbers.filter((n) => !n.endsWith('-404'))
      const answer = (n: string) => answers[route.api as keyof typeof answers](n, stage.get(n) === 'delivered')
      if (route.api === 'fedex')
        return send(200, {
          transactionId: 'x',
          output: {
            completeTrackResults: numbers.map((n) =>
              n.endsWith('-404')
                ? {
                    trackingNumber: n,
                    trackResults: [
                      {
                        trackingNumberInfo: { trackingNumber: n },
                        error: {
                          code: 'TRACKING.TRACKINGNUMBER.NOTFOUND',
                          message: 'Tracking number cannot be found.',
                        },
                      },
                    ],
                  }
                : answer(n),
            ),
          },
        })
      if (route.api === 'gls') return send(200, { parcels: known.map(answer) })
      return send(200, answer(one!))
    }
    const dhl = url.pathname === '/track/shipments'
    const number = dhl
      ? (url.searchParams.get('trackingNumber') ?? '')
      : decodeURIComponent(url.pathname.split('/').pop() ?? '')
    const seen = (requests.get(number) ?? 0) + 1
    requests.set(number, seen)
    const key = dhl ? request.headers['dhl-api-key'] : request.headers['x-okapi-key']
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers })
      response.end(body)
    }
    if (key !== (dhl ? DHL_KEY : LAPOSTE_KEY)) return send(401, '{"title":"Unauthorized"}')
    if (!dhl && url.searchParams.get('lang') !== 'fr_FR') return send(400, '{"code":"BAD_REQUEST"}')
    if (number.endsWith('-404')) return send(404, '{"title":"No shipment with given tracking number found."}')
    if (number.endsWith('-500')) return send(500, '{"title":"Internal error"}')
    if (down.has(number)) return send(503, '{"title":"Service Unavailable"}')
    if (number.endsWith('-BAD')) return send(200, '{"shipments": [ {"events": [ {')
    if (number.endsWith('-429') && seen === 1) return send(429, '{"title":"Too many requests"}', { 'retry-after': '1' })
    const body = dhl ? dhlShipment : laposteShipment(laposteCodes.get(number) ?? ['PC1', 'DR1'])
    send(200, JSON.stringify(body))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    laposteCodes,
    stage,
    calls,
    batches,
    tokens,
    down,
  }
}

/** A day's ledger in memory, for adapters asked outside a server (the service's own lives in Redis). */
export function memoryLedger(): CarrierLedger {
  const requests = new Map<string, number>()
  const errors = new Map<string, { message: string; at: number }>()
  return {
    async take(api, perDay) {
      const n = (requests.get(api) ?? 0) + 1
      if (perDay !== null && n > perDay) return false
      requests.set(api, n)
      return true
    },
    async fault(api, message) {
      errors.set(api, { message, at: Math.floor(Date.now() / 1000) })
    },
    async today(api) {
      return { requests: requests.get(api) ?? 0, lastError: errors.get(api) ?? null }
    },
  }
}

/** An adapter as the poller asks it: one number at a time, batched where the API takes several. */
export const asked = (adapter: CarrierApiAdapter, perDay: number | null = null, ledger = memoryLedger()) =>
  carrierCalls(adapter, { perDay }, ledger, new Map())
