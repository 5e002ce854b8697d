import { z } from 'zod'
import { dhlEventType } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { type CarrierApiAdapter, callForOne, trimSlash, unixSeconds } from './port.ts'

/** The parts of DHL Shipment Tracking – Unified's answer that shiplog reads. */
const answer = z.object({
  shipments: z
    .array(
      z.object({
        estimatedTimeOfDelivery: z.string().nullish(),
        events: z.array(
          z.object({
            timestamp: z.string(),
            statusCode: z.string(),
            status: z.string().nullish(),
            description: z.string().nullish(),
            location: z
              .object({
                address: z
                  .object({
                    addressLocality: z.string().nullish(),
                    postalCode: z.string().nullish(),
                    countryCode: z.string().nullish(),
                  })
                  .nullish(),
              })
              .nullish(),
          }),
        ),
      }),
    )
    .min(1),
})

/** DHL: `GET {url}/track/shipments?trackingNumber=<n>` with `DHL-API-Key`. */
export function dhlApi(config: { url: string; key: string }): CarrierApiAdapter {
  return {
    name: 'dhl',
    perCall: 1,
    trackMany: ([parcel]) => {
      const { trackingNumber, carrierCode } = parcel!
      return callForOne(
        parcel!,
        {
          url: `${trimSlash(config.url)}/track/shipments?trackingNumber=${encodeURIComponent(trackingNumber)}`,
          headers: { 'DHL-API-Key': config.key },
        },
        (json) => {
          const [shipment] = answer.parse(json).shipments
          const expected = shipment!.estimatedTimeOfDelivery ? unixSeconds(shipment!.estimatedTimeOfDelivery) : null
          return shipment!.events.map((e, i): CarrierEventInput => {
            const place = e.location?.address
            return {
              tracking_number: trackingNumber,
              carrier_code: carrierCode,
              event_type_code: dhlEventType(e.statusCode),
              happened_at: unixSeconds(e.timestamp),
              message: e.description ?? e.status ?? '',
              address: place
                ? {
                    city: place.addressLocality ?? null,
                    zip: place.postalCode ?? null,
                    country_code: place.countryCode ?? null,
                  }
                : null,
              raw: JSON.stringify(e),
              // DHL gives one estimate for the shipment: it goes with the newest event (DHL lists newest first).
              expected_delivery_at: i === 0 ? expected : null,
            }
          })
        },
        { unknownStatuses: [404] },
      )
    },
  }
}
