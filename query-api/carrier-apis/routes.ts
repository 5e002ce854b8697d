import { z } from 'zod'
import { carrierCodesOf, trackingApis } from '../../shared/domain/carriers/tracking-apis.ts'
import type { ConfiguredCarrierApi } from '../../shared/infra/carriers/apis.ts'
import type { CarrierLedger } from '../../shared/infra/carriers/ledger.ts'
import type { App } from '../../shared/infra/http/server.ts'

/*
 * GET /v2/carrier_apis: the carrier tracking APIs this service polls, and
 * how today has gone with each, from the ledger every worker writes to. The
 * same figures are counters on /metrics.
 */

/** How long the figures of a day may take before the route answers without them. */
const REDIS_WAIT_MS = 500

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
    async () => ({
      object: 'list' as const,
      has_more: false,
      data: await Promise.all(
        settings.map(async (s) => {
          // The ledger lives in Redis: without it the route still says what is configured.
          const today = await Promise.race([
            ledger.today(s.name).catch(() => undefined),
            new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), REDIS_WAIT_MS)),
          ])
          const requests = today?.requests ?? null
          return {
            object: 'carrier_api' as const,
            api: s.name,
            carrier_codes: carrierCodesOf(s.name),
            configured: s.adapter !== undefined,
            requests_per_second: s.perSecond,
            daily_budget: s.perDay,
            requests_today: requests,
            budget_left: s.perDay === null || requests === null ? null : Math.max(0, s.perDay - requests),
            last_error: today?.lastError ?? null,
          }
        }),
      ),
    }),
  )
}
