import { z } from 'zod'
import { weekdays } from './pickup-point-events.ts'

const country = z.string().length(2).nullable()

/** How a carrier service delivers, as the merchant configures it for delivery date estimation. */
export const carrierServiceConfig = z.object({
  name: z.string(),
  /** Business days in transit per lane; a null origin or destination is the default for that side. */
  transit_days: z.array(z.object({ origin: country, destination: country, days: z.number().int() })),
  cutoff_time: z.string().regex(/^\d{2}:\d{2}$/),
  time_zone: z.string(),
  pickup_days: z.array(z.enum(weekdays)),
  delivery_days: z.array(z.enum(weekdays)),
})
export type CarrierServiceConfig = z.infer<typeof carrierServiceConfig>

/** Events of a carrier service stream (`carrierservice-<accountId>_<carrier>_<service>`, `_` in a code escaped). */
export const carrierServiceEvents = {
  CarrierServiceConfigured: z.object({
    carrier_service_id: z.number().int(),
    carrier_code: z.string(),
    service_code: z.string(),
    config: carrierServiceConfig,
    at: z.number().int(),
  }),
} as const
