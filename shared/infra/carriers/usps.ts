import { z } from 'zod'
import { uspsEventType } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { oauthClient } from './oauth.ts'
import { type CarrierApiAdapter, callForOne, countryOf, trimSlash, unixSeconds } from './port.ts'

/** The parts of USPS Tracking v3's answer that shiplog reads. */
const answer = z.object({
  expectedDeliveryTimeStamp: z.string().nullish(),
  trackingEvents: z.array(
    z.object({
      eventType: z.string().nullish(),
      eventCode: z.string(),
      eventTimestamp: z.string().nullish(),
      GMTTimestamp: z.string().nullish(),
      GMTOffset: z.string().nullish(),
      eventCity: z.string().nullish(),
      eventState: z.string().nullish(),
      eventZIPCode: z.string().nullish(),
      eventCountry: z.string().nullish(),
      firm: z.string().nullish(),
      name: z.string().nullish(),
    }),
  ),
})

/** A timestamp that says its zone (`Z`, `+hh:mm`, `-hhmm`) as it is; one that does not, at the offset given. */
const zoned = (timestamp: string, offset: string) =>
  /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(timestamp) ? timestamp : `${timestamp}${offset}`

/** An event's time: its GMT timestamp, else its local one with its offset. */
function instantOf(e: z.infer<typeof answer>['trackingEvents'][number]): number {
  if (e.GMTTimestamp) return unixSeconds(zoned(e.GMTTimestamp, 'Z'))
  if (e.eventTimestamp) return unixSeconds(zoned(e.eventTimestamp, e.GMTOffset ?? 'Z'))
  throw new Error('an event without a time')
}

/**
 * USPS Tracking v3: `GET {url}/tracking/v3/tracking/<n>?expand=DETAIL` with
 * an OAuth 2 token (client credentials, scope `tracking`, at `/oauth2/v3/token`).
 */
export function uspsApi(config: { url: string; clientId: string; clientSecret: string }): CarrierApiAdapter {
  const oauth = oauthClient({
    tokenUrl: `${trimSlash(config.url)}/oauth2/v3/token`,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    scope: 'tracking',
    style: 'form',
  })
  return {
    name: 'usps',
    perCall: 1,
    trackMany: ([parcel]) =>
      oauth.call((authorization) =>
        callForOne(
          parcel!,
          {
            url: `${trimSlash(config.url)}/tracking/v3/tracking/${encodeURIComponent(parcel!.trackingNumber)}?expand=DETAIL`,
            headers: { authorization },
          },
          (json) => {
            const shipment = answer.parse(json)
            const expected = shipment.expectedDeliveryTimeStamp ? unixSeconds(shipment.expectedDeliveryTimeStamp) : null
            return shipment.trackingEvents.map((e, i): CarrierEventInput => {
              const type = uspsEventType(e.eventCode)
              return {
                tracking_number: parcel!.trackingNumber,
                carrier_code: parcel!.carrierCode,
                event_type_code: type,
                happened_at: instantOf(e),
                message: `${e.eventType ?? e.eventCode}${type === 'delivered' && e.name ? ` (signed by ${e.name})` : ''}`,
                address: {
                  address1: e.firm ?? null,
                  city: e.eventCity ?? null,
                  zip: e.eventZIPCode ?? null,
                  state: e.eventState ?? null,
                  country_code: countryOf(e.eventCountry) ?? (e.eventState ? 'US' : null),
                },
                raw: JSON.stringify(e),
                // USPS lists events newest first: its expected delivery goes with the newest.
                expected_delivery_at: i === 0 ? expected : null,
              }
            })
          },
          { unknownStatuses: [404] },
        ),
      ),
  }
}
