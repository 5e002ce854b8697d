import type { EventData } from '../events/index.ts'
import type { CarrierServiceConfig } from '../events/carrier-service-events.ts'
import type { IdSource } from '../ids.ts'
import { sameValue } from '../same-value.ts'

/** A configured carrier service as the write side needs it: its id and its configuration. */
export interface CarrierServiceState {
  id: number
  config: CarrierServiceConfig
}

/** A code escaped for a stream name: `_` separates the parts, so a code's own is escaped too. */
const streamPart = (code: string) => encodeURIComponent(code).replaceAll('_', '%5F')

export const carrierServiceStream = (accountId: number, carrierCode: string, serviceCode: string) =>
  `carrierservice-${accountId}_${streamPart(carrierCode)}_${streamPart(serviceCode)}`

/**
 * The name streams had before `_` was escaped in codes, under which `a_b/c`
 * and `a/b_c` met: a service whose codes hold `_` and that was configured
 * then goes on in it, as long as its last event is that service's.
 */
export const legacyCarrierServiceStream = (accountId: number, carrierCode: string, serviceCode: string) =>
  `carrierservice-${accountId}_${encodeURIComponent(carrierCode)}_${encodeURIComponent(serviceCode)}`

export interface ConfigureCarrierService {
  carrier_code: string
  service_code: string
  config: CarrierServiceConfig
  at: number
  ids: Pick<IdSource, 'next'>
}

/** The service keeps its id across changes; a configuration sent again unchanged records nothing. */
export function decideCarrierService(
  command: ConfigureCarrierService,
  state: CarrierServiceState | undefined,
): { type: 'CarrierServiceConfigured'; data: EventData<'CarrierServiceConfigured'> }[] {
  if (state && sameValue(state.config, command.config)) return []
  const { carrier_code, service_code, config, at } = command
  const carrier_service_id = state?.id ?? command.ids.next()
  return [{ type: 'CarrierServiceConfigured', data: { carrier_service_id, carrier_code, service_code, config, at } }]
}

export const evolveCarrierServiceState = (
  state: CarrierServiceState | undefined,
  data: EventData<'CarrierServiceConfigured'>,
): CarrierServiceState => ({ id: state?.id ?? data.carrier_service_id, config: data.config })
