import { z } from 'zod'
import { fedexEventType } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { oauthClient } from './oauth.ts'
import { type CarrierApiAdapter, callCarrier, countryOf, trimSlash, unixSeconds } from './port.ts'

/** The parts of the FedEx Track API's answer that shiplog reads. */
const answer = z.object({
  output: z.object({
    completeTrackResults: z.array(
      z.object({
        trackingNumber: z.string(),
        trackResults: z.array(
          z.object({
            error: z.object({ code: z.string(), message: z.string().nullish() }).nullish(),
            dateAndTimes: z.array(z.object({ type: z.string(), dateTime: z.string() })).nullish(),
            deliveryDetails: z.object({ receivedByName: z.string().nullish() }).nullish(),
            scanEvents: z
              .array(
                z.object({
                  date: z.string(),
                  eventType: z.string(),
                  eventDescription: z.string().nullish(),
                  scanLocation: z
                    .object({
                      streetLines: z.array(z.string()).nullish(),
                      city: z.string().nullish(),
                      stateOrProvinceCode: z.string().nullish(),
                      postalCode: z.string().nullish(),
                      countryCode: z.string().nullish(),
                    })
                    .nullish(),
                }),
              )
              .nullish(),
          }),
        ),
      }),
    ),
  }),
})

/**
 * FedEx Track API: `POST {url}/track/v1/trackingnumbers` for up to 30
 * numbers a call, with an OAuth 2 token (client credentials at `/oauth/token`).
 */
export function fedexApi(config: { url: string; clientId: string; clientSecret: string }): CarrierApiAdapter {
  const oauth = oauthClient({
    tokenUrl: `${trimSlash(config.url)}/oauth/token`,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    style: 'form',
  })
  return {
    name: 'fedex',
    perCall: 30,
    trackMany: (parcels) =>
      oauth.call(async (authorization) => {
        const carrierOf = new Map(parcels.map((p) => [p.trackingNumber, p.carrierCode]))
        const result = await callCarrier(
          {
            url: `${trimSlash(config.url)}/track/v1/trackingnumbers`,
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json', 'x-locale': 'en_US' },
            body: JSON.stringify({
              includeDetailedScans: true,
              trackingInfo: parcels.map((p) => ({ trackingNumberInfo: { trackingNumber: p.trackingNumber } })),
            }),
          },
          (json) => {
            const byNumber = new Map<string, CarrierEventInput[] | null>()
            for (const complete of answer.parse(json).output.completeTrackResults) {
              const carrierCode = carrierOf.get(complete.trackingNumber)
              const track = complete.trackResults[0]
              if (carrierCode === undefined) continue
              if (!track || track.error || !track.scanEvents) {
                byNumber.set(complete.trackingNumber, null) // TRACKING.TRACKINGNUMBER.NOTFOUND and the like
                continue
              }
              const estimate = track.dateAndTimes?.find((d) => d.type === 'ESTIMATED_DELIVERY')
              const signedBy = track.deliveryDetails?.receivedByName
              byNumber.set(
                complete.trackingNumber,
                track.scanEvents.map((e, i): CarrierEventInput => {
                  const place = e.scanLocation
                  const type = fedexEventType(e.eventType)
                  return {
                    tracking_number: complete.trackingNumber,
                    carrier_code: carrierCode,
                    event_type_code: type,
                    happened_at: unixSeconds(e.date),
                    message: `${e.eventDescription ?? e.eventType}${type === 'delivered' && signedBy ? ` (signed by ${signedBy})` : ''}`,
                    address: place
                      ? {
                          address1: place.streetLines?.filter(Boolean).join(', ') || null,
                          city: place.city ?? null,
                          zip: place.postalCode ?? null,
                          state: place.stateOrProvinceCode ?? null,
                          country_code: countryOf(place.countryCode),
                        }
                      : null,
                    raw: JSON.stringify(e),
                    // FedEx lists scans newest first: its estimate goes with the newest.
                    expected_delivery_at: i === 0 && estimate ? unixSeconds(estimate.dateTime) : null,
                  }
                }),
              )
            }
            return byNumber
          },
          { unknownStatuses: [404] },
        )
        return result.kind === 'found' ? { kind: 'found', byNumber: result.value } : result
      }),
  }
}
