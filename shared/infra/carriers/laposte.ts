import { z } from 'zod'
import { laposteEventType } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { type CarrierApiAdapter, callForOne, trimSlash, unixSeconds } from './port.ts'

/** The parts of La Poste Suivi v2's answer that shiplog reads. */
const answer = z.object({
  shipment: z.object({
    event: z.array(z.object({ code: z.string(), label: z.string(), date: z.string() })),
    isFinal: z.boolean().nullish(),
  }),
})

/**
 * La Poste (Colissimo, Chronopost): `GET {url}/suivi/v2/idships/<n>?lang=fr_FR`
 * with `X-Okapi-Key`. Its labels are French: kept as the message and as `messages.fr`.
 */
export function laposteApi(config: { url: string; key: string }): CarrierApiAdapter {
  return {
    name: 'laposte',
    perCall: 1,
    trackMany: ([parcel]) => {
      const { trackingNumber, carrierCode } = parcel!
      return callForOne(
        parcel!,
        {
          url: `${trimSlash(config.url)}/suivi/v2/idships/${encodeURIComponent(trackingNumber)}?lang=fr_FR`,
          headers: { 'X-Okapi-Key': config.key },
        },
        (json) =>
          answer.parse(json).shipment.event.map(
            (e): CarrierEventInput => ({
              tracking_number: trackingNumber,
              carrier_code: carrierCode,
              event_type_code: laposteEventType(e.code),
              happened_at: unixSeconds(e.date),
              message: e.label,
              messages: { fr: e.label },
              raw: JSON.stringify(e),
            }),
          ),
        // 404: no such number; 400: not a number La Poste could ever know.
        { unknownStatuses: [400, 404] },
      )
    },
  }
}
