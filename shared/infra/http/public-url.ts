import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'

/** Where customers reach the service: SHIPLOG_PUBLIC_URL, else the address this request came to. */
export const publicUrlOf = (rt: { config: Pick<Config, 'SHIPLOG_PUBLIC_URL'> }, request: FastifyRequest) =>
  rt.config.SHIPLOG_PUBLIC_URL ?? `${request.protocol}://${request.host}`
