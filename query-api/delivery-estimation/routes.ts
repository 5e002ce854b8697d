import { carrierServiceConfigResource, deliveryDateEstimations, listOf } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { countryCode } from '../../shared/domain/fields.ts'
import { isCalendarDate } from '../../shared/domain/delivery/calendar.ts'
import type { CarrierServiceDoc } from '../../projectors/carrier-services/carrier-service.ts'
import { renderCarrierServiceConfig } from '../../projectors/carrier-services/carrier-service.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { ESTIMATION_BODY_LIMIT } from '../../shared/infra/http/body-limits.ts'
import { listPage, paginationQuery } from '../shared/pagination.ts'
import { bestEstimation, estimateService, type Estimation } from '../../shared/domain/delivery/estimate.ts'
import { learnedFor } from '../../shared/domain/delivery/history.ts'
import { learnedHistory } from '../../projectors/deliveries/learned.ts'

const SERVICES = collections.carrier_services.name
/** Every service of an account is read for one estimation; more than this is not a configuration. */
const MAX_SERVICES = 1000

const place = z
  .object({
    country_code: countryCode.optional(),
    city: z.string().optional(),
    /** Where the destination's postcode is given, a lane's postcode prefix with enough history speaks for it. */
    postal_code: z.string().max(20).optional(),
  })
  .optional()

const estimationBody = z.preprocess(
  (body) => body ?? {},
  z.object({
    delivery_date_estimation: z
      .object({
        origin: place,
        destination: place,
        order: z
          .object({ merchant_shipping_date: z.string().refine(isCalendarDate, 'must be a date YYYY-MM-DD').optional() })
          .optional(),
        carriers: z.array(z.object({ code: z.string().min(1), service_code: z.string().min(1).nullish() })).optional(),
      })
      .optional(),
  }),
)

export function deliveryEstimationReadRoutes(app: App, rt: Runtime) {
  app.post(
    '/v1/delivery_date_estimation',
    {
      config: { auth: 'public-or-private' },
      bodyLimit: ESTIMATION_BODY_LIMIT,
      schema: {
        body: estimationBody,
        response: { 200: deliveryDateEstimations },
        summary:
          'Estimate delivery dates per carrier service, from the deliveries seen on the lane where there are enough',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      const input = request.body.delivery_date_estimation ?? {}
      await awaitPosition(request, rt, [SERVICES])
      const { docs } = await rt.readStore.find<CarrierServiceDoc>(SERVICES, {
        accountId: account.id,
        limit: MAX_SERVICES,
      })
      const asked = input.carriers
      const services = docs
        .map((d) => d.doc)
        .filter(
          (s) =>
            !asked ||
            asked.some(
              (c) => c.code === s.carrier_code && (c.service_code == null || c.service_code === s.service_code),
            ),
        )
        .sort((a, b) => a.carrier_code.localeCompare(b.carrier_code) || a.service_code.localeCompare(b.service_code))
      const now = rt.clock.now()
      const request_ = {
        origin: input.origin,
        destination: input.destination,
        merchant_shipping_date: input.order?.merchant_shipping_date,
      }
      const history = await learnedHistory(rt, account.id, services)
      const estimations = services
        .map((s) =>
          estimateService(
            s,
            request_,
            now,
            learnedFor(history, {
              carrier_code: s.carrier_code,
              service_code: s.service_code,
              origin: input.origin?.country_code,
              destination: input.destination?.country_code,
              postcode: input.destination?.postal_code,
            }),
          ),
        )
        .filter((e): e is Estimation => e !== undefined)
      return { delivery_date_estimations: estimations, best_estimation: bestEstimation(estimations) }
    },
  )

  app.get(
    '/v2/carrier_services',
    {
      schema: {
        querystring: z.object(paginationQuery),
        response: { 200: listOf(carrierServiceConfigResource) },
        summary: 'List configured carrier services',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      await awaitPosition(request, rt, [SERVICES])
      const q = request.query
      return listPage(rt.readStore, SERVICES, account.id, q, [], renderCarrierServiceConfig)
    },
  )
}
