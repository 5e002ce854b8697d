import { listOf, pickupPointResource } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { awaitPosition } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import type { PickupPointDoc } from '../../projectors/pickup-points/pickup-point.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { listPage, paginationQuery, whereEqual } from '../shared/pagination.ts'

const POINTS = collections.pickup_points.name

export const renderPickupPoint = ({ id, ...fields }: PickupPointDoc): z.output<typeof pickupPointResource> => ({
  object: 'pickup_point',
  id,
  ...fields,
})

export function pickupPointReadRoutes(app: App, rt: Runtime) {
  app.get(
    '/v2/pickup_points',
    {
      schema: {
        querystring: z.object({ merchant_id: z.string().optional(), ...paginationQuery }),
        response: { 200: listOf(pickupPointResource) },
        summary: 'List pickup points',
      },
    },
    async (request) => {
      const { account } = callerOf(request)
      const q = request.query
      await awaitPosition(request, rt, [POINTS])
      return listPage(
        rt.readStore,
        POINTS,
        account.id,
        q,
        whereEqual({ merchant_id: q.merchant_id }),
        renderPickupPoint,
      )
    },
  )
}
