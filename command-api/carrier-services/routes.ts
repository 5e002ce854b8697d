import { carrierServiceConfigResource } from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import type { App } from '../../shared/infra/http/server.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { carrierServiceBody, configureCarrierService, serviceCode } from '../../commands/carrier-services/configure.ts'
import { commandRequest, sendCommandResponse } from '../command-request.ts'

export function carrierServiceWriteRoutes(app: App, rt: Runtime) {
  app.put(
    '/v2/carrier_services/:carrier_code/:service_code',
    {
      schema: {
        params: z.object({ carrier_code: serviceCode, service_code: serviceCode }),
        body: carrierServiceBody,
        response: { 200: carrierServiceConfigResource, 201: carrierServiceConfigResource },
        summary: 'Configure a carrier service for delivery date estimation',
      },
    },
    async (request, reply) => {
      const { carrier_code, service_code } = request.params
      return sendCommandResponse(
        reply,
        await configureCarrierService(rt, commandRequest(request), carrier_code, service_code, request.body),
      )
    },
  )
}
