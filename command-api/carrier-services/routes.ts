import { z } from 'zod'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { expectedAfter } from '../../shared/infra/event-store/port.ts'
import { countryCode, timeOfDay } from '../../shared/domain/fields.ts'
import {
  carrierServiceStream,
  evolveCarrierService,
  renderCarrierServiceConfig,
  type CarrierServiceDoc,
} from '../../projectors/carrier-services/carrier-service.ts'
import { isTimeZone } from '../../shared/domain/delivery/calendar.ts'
import type { DomainEvent } from '../../shared/domain/events/index.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { weekdays } from '../../shared/domain/events/pickup-point-events.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { commandRequest, executeCommand, metadataFor, sendCommandResponse, toNewEvents } from '../execute.ts'

const code = z.string().trim().min(1).max(100)
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
  time_zone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Paris'),
  pickup_days: dayList,
  delivery_days: dayList,
})

export function carrierServiceRoutes(app: App, rt: Runtime) {
  app.put(
    '/v2/carrier_services/:carrier_code/:service_code',
    {
      schema: {
        params: z.object({ carrier_code: code, service_code: code }),
        body: carrierServiceBody,
        summary: 'Configure a carrier service for delivery date estimation',
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const { carrier_code, service_code } = request.params
      const stream = carrierServiceStream(account.id, carrier_code, service_code)
      const command = commandRequest(request)
      const response = await executeCommand(rt, command, async () => {
        const history = await rt.eventStore.readStream(stream)
        const current = asDomainEvents<Extract<DomainEvent, { type: 'CarrierServiceConfigured' }>>(history).reduce<
          CarrierServiceDoc | undefined
        >((d, e) => evolveCarrierService(d, e.data), undefined)
        const now = rt.clock.now()
        const data = {
          carrier_service_id: current?.id ?? rt.ids.next(),
          carrier_code,
          service_code,
          config: request.body,
          at: toUnixSeconds(now),
        }
        return {
          appends: [
            {
              stream,
              expected: expectedAfter(history.length - 1),
              events: toNewEvents([{ type: 'CarrierServiceConfigured', data }], metadataFor(command, now.getTime())),
            },
          ],
          status: current ? 200 : 201,
          body: renderCarrierServiceConfig(evolveCarrierService(current, data)),
          readPosition: history.at(-1)?.position ?? 0n,
        }
      })
      return sendCommandResponse(reply, response)
    },
  )
}
