import { z } from 'zod'
import { glsEventType } from '../../domain/carriers/tracking-apis.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { type CarrierApiAdapter, callCarrier, countryOf, trimSlash, unixSeconds } from './port.ts'

/** The parts of GLS Track and Trace's answer that shiplog reads. */
const answer = z.object({
  parcels: z.array(
    z.object({
      requested: z.string(),
      deliveryDate: z.string().nullish(),
      signature: z.object({ name: z.string().nullish() }).nullish(),
      events: z.array(
        z.object({
          code: z.string(),
          description: z.string().nullish(),
          eventDateTime: z.string(),
          city: z.string().nullish(),
          postalCode: z.string().nullish(),
          country: z.string().nullish(),
          parcelShop: z.object({ name: z.string().nullish(), address: z.string().nullish() }).nullish(),
        }),
      ),
    }),
  ),
})

/** GLS writes offsets as `+0100`: ISO 8601 as Date.parse reads it. */
const isoTime = (text: string) => text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')

/** GLS: `GET {url}/public/v1/tracking/references/<ref>,<ref>…` (up to 10) with HTTP Basic. */
export function glsApi(config: { url: string; username: string; password: string }): CarrierApiAdapter {
  const authorization = `Basic ${Buffer.from(`${config.username}:${config.password}`).toString('base64')}`
  return {
    name: 'gls',
    perCall: 10,
    async trackMany(parcels) {
      const carrierOf = new Map(parcels.map((p) => [p.trackingNumber, p.carrierCode]))
      const refs = parcels.map((p) => encodeURIComponent(p.trackingNumber)).join(',')
      const result = await callCarrier(
        { url: `${trimSlash(config.url)}/public/v1/tracking/references/${refs}`, headers: { authorization } },
        (json) => {
          const byNumber = new Map<string, CarrierEventInput[] | null>(parcels.map((p) => [p.trackingNumber, null]))
          for (const parcel of answer.parse(json).parcels) {
            const carrierCode = carrierOf.get(parcel.requested)
            if (carrierCode === undefined) continue
            const expected = parcel.deliveryDate ? unixSeconds(isoTime(parcel.deliveryDate)) : null
            byNumber.set(
              parcel.requested,
              parcel.events.map((e, i): CarrierEventInput => {
                const type = glsEventType(e.code)
                const signedBy = type === 'delivered' ? parcel.signature?.name : null
                return {
                  tracking_number: parcel.requested,
                  carrier_code: carrierCode,
                  event_type_code: type,
                  happened_at: unixSeconds(isoTime(e.eventDateTime)),
                  message: `${e.description ?? e.code}${signedBy ? ` (signed by ${signedBy})` : ''}`,
                  address: {
                    address1: [e.parcelShop?.name, e.parcelShop?.address].filter(Boolean).join(', ') || null,
                    city: e.city ?? null,
                    zip: e.postalCode ?? null,
                    country_code: countryOf(e.country),
                  },
                  raw: JSON.stringify(e),
                  // GLS lists events newest first: its delivery date goes with the newest.
                  expected_delivery_at: i === 0 ? expected : null,
                }
              }),
            )
          }
          return byNumber
        },
        { unknownStatuses: [404] },
      )
      return result.kind === 'found' ? { kind: 'found', byNumber: result.value } : result
    },
  }
}
