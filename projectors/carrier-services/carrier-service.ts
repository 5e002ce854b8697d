import type { z } from 'zod'
import type { carrierServiceConfigResource } from '../resources/schemas.ts'
import type { EventData } from '../../shared/domain/events/index.ts'
import type { CarrierServiceConfig } from '../../shared/domain/events/carrier-service-events.ts'

export interface CarrierServiceDoc extends CarrierServiceConfig {
  id: number
  carrier_code: string
  service_code: string
  created_at: number
  updated_at: number
}

export const evolveCarrierService = (
  doc: CarrierServiceDoc | undefined,
  data: EventData<'CarrierServiceConfigured'>,
): CarrierServiceDoc => ({
  ...data.config,
  id: doc?.id ?? data.carrier_service_id,
  carrier_code: data.carrier_code,
  service_code: data.service_code,
  created_at: doc?.created_at ?? data.at,
  updated_at: data.at,
})

/** The carrier service resource: the spec's `{object, id, code, name}` plus its delivery configuration. */
export const renderCarrierServiceConfig = (s: CarrierServiceDoc): z.output<typeof carrierServiceConfigResource> => ({
  object: 'carrier_service',
  id: s.id,
  code: s.service_code,
  name: s.name,
  carrier: { object: 'carrier', code: s.carrier_code },
  transit_days: s.transit_days,
  cutoff_time: s.cutoff_time,
  time_zone: s.time_zone,
  pickup_days: s.pickup_days,
  delivery_days: s.delivery_days,
  created_at: s.created_at,
  updated_at: s.updated_at,
})
