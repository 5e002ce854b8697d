import { once } from 'node:events'
import { createServer } from 'node:http'
import type { Test } from 'tap'

/*
 * A local HTTP server answering with the documented shapes of DHL Shipment
 * Tracking – Unified and La Poste Suivi v2, by tracking number:
 *   *-OK: a shipment with its events; *-404: unknown; *-429: rate limited once
 *   (Retry-After: 1), then OK; *-500: a server error; *-BAD: malformed JSON.
 * A wrong key answers 401. Every request is counted by tracking number.
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
}

export async function startCarrierServer(t: Test): Promise<CarrierServer> {
  const requests = new Map<string, number>()
  const laposteCodes = new Map<string, string[]>()
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
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
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests, laposteCodes }
}
