import type { EventData } from '../../shared/domain/events/index.ts'
import type { PickupPointFields } from '../../shared/domain/events/pickup-point-events.ts'

export interface PickupPointDoc extends PickupPointFields {
  id: number
  created_at: number
  updated_at: number
}

/**
 * An import replaces the point's fields; its id and creation time stay
 * (Object.assign rather than a spread: docs/contributing.md, objects on hot paths).
 */
export const evolvePickupPoint = (
  point: PickupPointDoc | undefined,
  data: EventData<'PickupPointImported'>,
): PickupPointDoc =>
  Object.assign({}, data.fields, {
    id: point?.id ?? data.pickup_point_id,
    created_at: point?.created_at ?? data.at,
    updated_at: data.at,
  })
