import { z } from 'zod'
import { trackingApis } from '../../shared/domain/carriers/tracking-apis.ts'
import type { ConfiguredCarrierApi } from '../../shared/infra/carriers/apis.ts'
import { type CarrierLedger, carrierApiFigures } from '../../shared/infra/carriers/ledger.ts'
import type { App } from '../../shared/infra/http/server.ts'

/*
 * GET /v2/carrier_apis: the carrier tracking APIs this service polls, and
 * how today has gone with each, from the ledger every worker writes to. The
 * same figures are counters on /metrics.
 */

const carrierApi = z
  .object({
    object: z.literal('carrier_api'),
    api: z.enum(trackingApis),
    carrier_codes: z.array(z.string()),
    configured: z.boolean().meta({ description: 'Whether its credentials are set: only then are its trackers polled' }),
    requests_per_second: z.number().int(),
    daily_budget: z.number().int().nullable().meta({ description: 'Requests a day (UTC); null: none' }),
    requests_today: z.number().int().nullable().meta({ description: 'Null while the job queue’s Redis is away' }),
    budget_left: z.number().int().nullable(),
    last_error: z
      .object({ message: z.string(), at: z.number().int().meta({ description: 'Unix seconds' }) })
      .nullable(),
  })
  .meta({ id: 'CarrierApi' })
const carrierApiList = z
  .object({ object: z.literal('list'), data: z.array(carrierApi), has_more: z.boolean() })
  .meta({ id: 'CarrierApiList' })

export function carrierApiRoutes(app: App, settings: readonly ConfiguredCarrierApi[], ledger: CarrierLedger) {
  app.get(
    '/v2/carrier_apis',
    {
      schema: {
        response: { 200: carrierApiList },
        summary: 'The carrier tracking APIs: configured or not, requests today, budget left, last error',
      },
    },
    async () => ({ object: 'list' as const, has_more: false, data: await carrierApiFigures(settings, ledger) }),
  )
}
