import type { EventData } from '../events/index.ts'
import type { PickupPointFields } from '../events/pickup-point-events.ts'

export interface PickupPointDoc extends PickupPointFields {
  id: number
  created_at: number
  updated_at: number
}

/** Merchant ids are merchant strings: escaped so any of them is a safe stream name. */
export const pickupPointStream = (accountId: number, merchantId: string) =>
  `pickuppoint-${accountId}_${encodeURIComponent(merchantId)}`

/** An import replaces the point's fields; its id and creation time stay. */
export const evolvePickupPoint = (point: PickupPointDoc | undefined, data: EventData<'PickupPointImported'>): PickupPointDoc => ({
  ...data.fields,
  id: point?.id ?? data.pickup_point_id,
  created_at: point?.created_at ?? data.at,
  updated_at: data.at,
})
