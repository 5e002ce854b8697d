import t from 'tap'
import {
  decideCarrierService,
  evolveCarrierServiceState,
} from '../../shared/domain/carrier-services/carrier-service.ts'
import type { EventData } from '../../shared/domain/events/index.ts'
import { countingIds, specOf } from '../support/decider.ts'

type Configured = { type: 'CarrierServiceConfigured'; data: EventData<'CarrierServiceConfigured'> }
const given = specOf<
  Parameters<typeof decideCarrierService>[0],
  ReturnType<typeof evolveCarrierServiceState>,
  Configured
>({
  decide: decideCarrierService,
  evolve: (s, e) => evolveCarrierServiceState(s, e.data),
})
const config = {
  name: 'Colissimo Home',
  transit_days: [{ origin: 'FR', destination: 'FR', days: 2 }],
  cutoff_time: '16:00',
  time_zone: 'Europe/Paris',
  pickup_days: ['monday' as const],
  delivery_days: ['tuesday' as const],
}
const configure = (over: Partial<typeof config> = {}, at = 100) => ({
  carrier_code: 'colissimo',
  service_code: 'home',
  config: { ...config, ...over },
  at,
  ids: countingIds(500),
})
const configured = (id: number, c = config, at = 100): Configured => ({
  type: 'CarrierServiceConfigured',
  data: { carrier_service_id: id, carrier_code: 'colissimo', service_code: 'home', config: c, at },
})

t.test('a new service gets a new id', async (t) => {
  given([])
    .when(configure())
    .thenEvents(t, [configured(500)])
})

t.test('a changed service keeps its id', async (t) => {
  const faster = { ...config, cutoff_time: '18:00' }
  given([configured(42)])
    .when(configure({ cutoff_time: '18:00' }, 200))
    .thenEvents(t, [configured(42, faster, 200)])
})

t.test('the same configuration sent again records nothing', async (t) => {
  given([configured(42)])
    .when(configure({}, 300))
    .thenEvents(t, [])
})
