import { z } from 'zod'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { expectedAfter } from '../../shared/infra/event-store/port.ts'
import { countryCode, timeOfDay, timeZone } from '../../shared/domain/fields.ts'
import { evolveCarrierService, renderCarrierServiceConfig } from '../../projectors/carrier-services/carrier-service.ts'
import {
  carrierServiceStream,
  legacyCarrierServiceStream,
  decideCarrierService,
  evolveCarrierServiceState,
} from '../../shared/domain/carrier-services/carrier-service.ts'
import type { DomainEvent, EventData } from '../../shared/domain/events/index.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { weekdays } from '../../shared/domain/events/pickup-point-events.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type CommandRequest, executeCommand, metadataFor, toNewEvents } from '../execute.ts'

/*
 * Configuring a carrier service of an account (its lanes' transit days,
 * cut-off, pickup and delivery days): the API's PUT and the console's form
 * take the same body through here.
 */

export const serviceCode = z.string().trim().min(1).max(100)
const country = countryCode.nullable()
const dayList = z
  .array(z.enum(weekdays))
  .min(1, 'needs at least one weekday')
  .refine((days) => new Set(days).size === days.length, 'must not repeat a weekday')

export const carrierServiceBody = z.strictObject({
  name: z.string().trim().min(1),
  transit_days: z
    .array(
      z.strictObject({
        origin: country,
        destination: country,
        days: z.number().int().min(0, 'must not be negative').max(90),
      }),
    )
    .min(1, 'needs at least one lane'),
  cutoff_time: timeOfDay,
  time_zone: timeZone,
  pickup_days: dayList,
  delivery_days: dayList,
})

/** The service's stream and its events: its own, or the legacy one it was configured in (see legacyCarrierServiceStream). */
const serviceStream = async (rt: Runtime, accountId: number, carrier_code: string, service_code: string) => {
  const stream = carrierServiceStream(accountId, carrier_code, service_code)
  const recorded = await rt.eventStore.readStream(stream)
  const legacy = legacyCarrierServiceStream(accountId, carrier_code, service_code)
  if (recorded.length > 0 || legacy === stream) return { stream, recorded }
  const old = await rt.eventStore.readStream(legacy)
  const last = old.at(-1)?.data as { carrier_code: string; service_code: string } | undefined
  return last?.carrier_code === carrier_code && last.service_code === service_code
    ? { stream: legacy, recorded: old }
    : { stream, recorded }
}

/** Configures a service, creating it (201) or replacing its settings (200). */
export function configureCarrierService(
  rt: Runtime,
  command: CommandRequest,
  carrier_code: string,
  service_code: string,
  config: z.output<typeof carrierServiceBody>,
) {
  const { account } = command
  return executeCommand(rt, command, async () => {
    const { stream, recorded } = await serviceStream(rt, account.id, carrier_code, service_code)
    const history = asDomainEvents<Extract<DomainEvent, { type: 'CarrierServiceConfigured' }>>(recorded)
    const fold = <S>(evolve: (s: S | undefined, d: EventData<'CarrierServiceConfigured'>) => S) =>
      history.reduce<S | undefined>((s, e) => evolve(s, e.data), undefined)
    const now = rt.clock.now()
    const configure = { carrier_code, service_code, config, at: toUnixSeconds(now), ids: rt.ids }
    const events = decideCarrierService(configure, fold(evolveCarrierServiceState))
    const doc = events.reduce((d, e) => evolveCarrierService(d, e.data), fold(evolveCarrierService))!
    return {
      appends: [
        {
          stream,
          expected: expectedAfter(history.length - 1),
          events: toNewEvents(events, metadataFor(command, now.getTime())),
        },
      ],
      status: history.length > 0 ? 200 : 201,
      body: renderCarrierServiceConfig(doc),
      readPosition: recorded.at(-1)?.position ?? 0n,
    }
  })
}
