import { z } from 'zod'
import { postnlEventType } from '../../domain/carriers/tracking-apis.ts'
import { instantOf } from '../../domain/delivery/calendar.ts'
import type { CarrierEventInput } from '../../domain/orders/record-tracking-events.ts'
import { type CarrierApiAdapter, callForOne, trimSlash } from './port.ts'

const status = z.object({
  TimeStamp: z.string(),
  StatusCode: z.string(),
  StatusDescription: z.string().nullish(),
  PhaseDescription: z.string().nullish(),
})
const shipment = z.object({
  Barcode: z.string().nullish(),
  Expectation: z.object({ ETAFrom: z.string().nullish(), ETATo: z.string().nullish() }).nullish(),
  Status: status,
  OldStatuses: z.array(status).nullish(),
})
/** The parts of PostNL Shipment Status v2's answer that shiplog reads (`detail=true`: the old statuses too). */
const answer = z.object({
  CompleteStatus: z.object({ Shipment: z.union([shipment, z.array(shipment)]).nullish() }).nullish(),
  CurrentStatus: z.object({ Shipment: z.union([shipment, z.array(shipment)]).nullish() }).nullish(),
})

/** PostNL writes times in Dutch time, `23-11-2026 09:30:00` or ISO 8601 without a zone. */
function amsterdamSeconds(text: string): number {
  const dutch = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}:\d{2})(?::(\d{2}))?$/.exec(text)
  const iso = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2})(?::(\d{2}))?/.exec(text)
  const [date, time, seconds] = dutch
    ? [`${dutch[3]}-${dutch[2]}-${dutch[1]}`, dutch[4]!, dutch[5]]
    : iso
      ? [`${iso[1]}-${iso[2]}-${iso[3]}`, iso[4]!, iso[5]]
      : []
  if (!date || !time) throw new Error(`${text} is not a PostNL time`)
  const instant = instantOf('Europe/Amsterdam', date, time).getTime()
  if (Number.isNaN(instant)) throw new Error(`${text} is not a PostNL time`)
  return Math.floor(instant / 1000) + Number(seconds ?? 0)
}

/** PostNL: `GET {url}/shipment/v2/status/barcode/<barcode>?detail=true` with the `apikey` header. */
export function postnlApi(config: { url: string; key: string }): CarrierApiAdapter {
  return {
    name: 'postnl',
    perCall: 1,
    trackMany: ([parcel]) =>
      callForOne(
        parcel!,
        {
          url: `${trimSlash(config.url)}/shipment/v2/status/barcode/${encodeURIComponent(parcel!.trackingNumber)}?detail=true`,
          headers: { apikey: config.key },
        },
        (json) => {
          const parsed = answer.parse(json)
          const found = parsed.CompleteStatus?.Shipment ?? parsed.CurrentStatus?.Shipment
          const current = Array.isArray(found) ? found[0] : found
          if (!current) return null
          const eta = current.Expectation?.ETATo ?? current.Expectation?.ETAFrom
          // Newest first, as PostNL lists them: the current status, then the old ones.
          return [current.Status, ...(current.OldStatuses ?? [])].map(
            (s, i): CarrierEventInput => ({
              tracking_number: parcel!.trackingNumber,
              carrier_code: parcel!.carrierCode,
              event_type_code: postnlEventType(s.StatusCode),
              happened_at: amsterdamSeconds(s.TimeStamp),
              message: s.StatusDescription ?? s.PhaseDescription ?? s.StatusCode,
              raw: JSON.stringify(s),
              expected_delivery_at: i === 0 && eta ? amsterdamSeconds(eta) : null,
            }),
          )
        },
        { unknownStatuses: [404] },
      ),
  }
}
