import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { upsEventType } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { oauthClient } from './oauth.ts'
import { type CarrierApiAdapter, callForOne, countryOf, trimSlash, unixSeconds } from './port.ts'

/** The parts of the UPS Track API's answer that shiplog reads. */
const answer = z.object({
  trackResponse: z.object({
    shipment: z
      .array(
        z.object({
          package: z
            .array(
              z.object({
                deliveryDate: z.array(z.object({ type: z.string(), date: z.string() })).nullish(),
                deliveryInformation: z.object({ receivedBy: z.string().nullish() }).nullish(),
                activity: z.array(
                  z.object({
                    location: z
                      .object({
                        address: z
                          .object({
                            city: z.string().nullish(),
                            stateProvince: z.string().nullish(),
                            postalCode: z.string().nullish(),
                            countryCode: z.string().nullish(),
                          })
                          .nullish(),
                      })
                      .nullish(),
                    status: z.object({
                      type: z.string(),
                      description: z.string().nullish(),
                      code: z.string().nullish(),
                    }),
                    date: z.string().regex(/^\d{8}$/),
                    time: z.string().regex(/^\d{6}$/),
                    gmtOffset: z
                      .string()
                      .regex(/^[+-]\d{2}:\d{2}$/)
                      .nullish(),
                  }),
                ),
              }),
            )
            .nullish(),
          warnings: z.array(z.object({ code: z.string(), message: z.string().nullish() })).nullish(),
        }),
      )
      .min(1),
  }),
})

/** `20261123` and `093000` at `+01:00` (UTC without an offset) as an ISO 8601 time. */
const isoOf = (date: string, time: string, offset?: string | null) =>
  `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}T${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4)}${offset ?? 'Z'}`

/**
 * UPS Track API: `GET {url}/api/track/v1/details/<n>` with an OAuth 2 token
 * (client credentials at `/security/v1/oauth/token`) and the `transId` and
 * `transactionSrc` headers UPS asks for.
 */
export function upsApi(config: { url: string; clientId: string; clientSecret: string }): CarrierApiAdapter {
  const oauth = oauthClient({
    tokenUrl: `${trimSlash(config.url)}/security/v1/oauth/token`,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    style: 'basic',
  })
  return {
    name: 'ups',
    perCall: 1,
    trackMany: ([parcel]) =>
      oauth.call((authorization) =>
        callForOne(
          parcel!,
          {
            url: `${trimSlash(config.url)}/api/track/v1/details/${encodeURIComponent(parcel!.trackingNumber)}?locale=en_US`,
            headers: { authorization, transId: randomUUID().replaceAll('-', ''), transactionSrc: 'shiplog' },
          },
          (json) => {
            const [shipment] = answer.parse(json).trackResponse.shipment
            const pkg = shipment!.package?.[0]
            if (!pkg) return null // a warning such as TW0001, "Tracking Information Not Found"
            const scheduled = pkg.deliveryDate?.find((d) => d.type === 'SDD' || d.type === 'RDD')
            const expected = scheduled ? unixSeconds(isoOf(scheduled.date, '180000')) : null
            return pkg.activity.map((a, i): CarrierEventInput => {
              const place = a.location?.address
              const type = upsEventType(a.status.type)
              const signed = type === 'delivered' && pkg.deliveryInformation?.receivedBy
              return {
                tracking_number: parcel!.trackingNumber,
                carrier_code: parcel!.carrierCode,
                event_type_code: type,
                happened_at: unixSeconds(isoOf(a.date, a.time, a.gmtOffset)),
                message: `${a.status.description ?? a.status.type}${signed ? ` (signed by ${signed})` : ''}`,
                address: place
                  ? {
                      city: place.city ?? null,
                      zip: place.postalCode ?? null,
                      state: place.stateProvince ?? null,
                      country_code: countryOf(place.countryCode),
                    }
                  : null,
                raw: JSON.stringify(a),
                // UPS lists activity newest first: its scheduled date goes with the newest.
                expected_delivery_at: i === 0 ? expected : null,
              }
            })
          },
          { unknownStatuses: [404] },
        ),
      ),
  }
}
