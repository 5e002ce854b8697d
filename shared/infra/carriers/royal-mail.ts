import { z } from 'zod'
import { royalMailEventType } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { type CarrierApiAdapter, callForOne, trimSlash, unixSeconds } from './port.ts'

/** The parts of Royal Mail Tracking v2's answer that shiplog reads. */
const answer = z.object({
  mailPieces: z.object({
    estimatedDelivery: z.object({ date: z.string(), endOfEstimatedWindow: z.string().nullish() }).nullish(),
    signature: z.object({ recipientName: z.string().nullish() }).nullish(),
    events: z.array(
      z.object({
        eventCode: z.string(),
        eventName: z.string().nullish(),
        eventDateTime: z.string(),
        locationName: z.string().nullish(),
      }),
    ),
  }),
})

/**
 * Royal Mail: `GET {url}/mailpieces/v2/<id>/events` with `X-IBM-Client-Id`,
 * `X-IBM-Client-Secret` and `X-Accept-RMG-Terms: yes`.
 */
export function royalMailApi(config: { url: string; clientId: string; clientSecret: string }): CarrierApiAdapter {
  return {
    name: 'royal_mail',
    perCall: 1,
    trackMany: ([parcel]) =>
      callForOne(
        parcel!,
        {
          url: `${trimSlash(config.url)}/mailpieces/v2/${encodeURIComponent(parcel!.trackingNumber)}/events`,
          headers: {
            'X-IBM-Client-Id': config.clientId,
            'X-IBM-Client-Secret': config.clientSecret,
            'X-Accept-RMG-Terms': 'yes',
          },
        },
        (json) => {
          const piece = answer.parse(json).mailPieces
          const estimate = piece.estimatedDelivery
          const expected = estimate
            ? unixSeconds(`${estimate.date}T${estimate.endOfEstimatedWindow ?? '18:00:00Z'}`)
            : null
          return piece.events.map((e, i): CarrierEventInput => {
            const type = royalMailEventType(e.eventCode)
            const signedBy = type === 'delivered' ? piece.signature?.recipientName : null
            return {
              tracking_number: parcel!.trackingNumber,
              carrier_code: parcel!.carrierCode,
              event_type_code: type,
              happened_at: unixSeconds(e.eventDateTime),
              message: `${e.eventName ?? e.eventCode}${signedBy ? ` (signed by ${signedBy})` : ''}`,
              address: e.locationName ? { city: e.locationName, country_code: 'GB' } : null,
              raw: JSON.stringify(e),
              // Royal Mail lists events newest first: its estimate goes with the newest.
              expected_delivery_at: i === 0 ? expected : null,
            }
          })
        },
        { unknownStatuses: [404] },
      ),
  }
}
