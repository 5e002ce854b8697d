import type { Config } from '../config.ts'
import { dhlApi } from './dhl.ts'
import { laposteApi } from './laposte.ts'
import type { CarrierTrackingApi } from './port.ts'

/** The carrier tracking APIs this service may poll: those whose key is set. */
export function configuredCarrierApis(config: Config): CarrierTrackingApi[] {
  return [
    ...(config.SHIPLOG_DHL_API_KEY
      ? [dhlApi({ url: config.SHIPLOG_DHL_API_URL, key: config.SHIPLOG_DHL_API_KEY })]
      : []),
    ...(config.SHIPLOG_LAPOSTE_API_KEY
      ? [laposteApi({ url: config.SHIPLOG_LAPOSTE_API_URL, key: config.SHIPLOG_LAPOSTE_API_KEY })]
      : []),
  ]
}
