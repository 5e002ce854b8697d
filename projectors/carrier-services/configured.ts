import type { CarrierServiceDoc } from './carrier-service.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'

/** Most carrier services an account configures: each is one carrier's one service. */
const MAX_CARRIER_SERVICES = 100

/** The account's configured carrier services, as commands that name a service need them. */
export async function configuredServices(rt: Pick<Runtime, 'readStore'>, accountId: number) {
  const page = await rt.readStore.find<CarrierServiceDoc>(collections.carrier_services.name, {
    accountId,
    limit: MAX_CARRIER_SERVICES,
  })
  return page.docs.map((d) => d.doc)
}
