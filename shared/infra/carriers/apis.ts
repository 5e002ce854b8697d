import { publishedLimits, type TrackingApi } from '../../domain/carriers/tracking-apis.ts'
import type { Config } from '../config.ts'
import { dhlApi } from './dhl.ts'
import { fedexApi } from './fedex.ts'
import { glsApi } from './gls.ts'
import { laposteApi } from './laposte.ts'
import type { CarrierApiAdapter } from './port.ts'
import { postnlApi } from './postnl.ts'
import { royalMailApi } from './royal-mail.ts'
import { upsApi } from './ups.ts'
import { uspsApi } from './usps.ts'

/** One carrier API as configured: its adapter when its credentials are set, and its limits. */
export interface ConfiguredCarrierApi {
  name: TrackingApi
  adapter: CarrierApiAdapter | undefined
  perSecond: number
  /** Requests a day; null: no daily budget. */
  perDay: number | null
}

const perDayOf = (set: number | undefined, api: TrackingApi) =>
  set === undefined ? publishedLimits[api].perDay : set === 0 ? null : set

/** Every carrier tracking API shiplog knows, configured or not. */
export function carrierApiSettings(c: Config): ConfiguredCarrierApi[] {
  const api = (
    name: TrackingApi,
    adapter: CarrierApiAdapter | undefined,
    perSecond: number,
    perDay: number | undefined,
  ): ConfiguredCarrierApi => ({ name, adapter, perSecond, perDay: perDayOf(perDay, name) })
  const oauth = (url: string, clientId?: string, clientSecret?: string) =>
    clientId && clientSecret ? { url, clientId, clientSecret } : undefined
  const ups = oauth(c.SHIPLOG_UPS_API_URL, c.SHIPLOG_UPS_CLIENT_ID, c.SHIPLOG_UPS_CLIENT_SECRET)
  const fedex = oauth(c.SHIPLOG_FEDEX_API_URL, c.SHIPLOG_FEDEX_CLIENT_ID, c.SHIPLOG_FEDEX_CLIENT_SECRET)
  const usps = oauth(c.SHIPLOG_USPS_API_URL, c.SHIPLOG_USPS_CLIENT_ID, c.SHIPLOG_USPS_CLIENT_SECRET)
  const royalMail = oauth(c.SHIPLOG_ROYALMAIL_API_URL, c.SHIPLOG_ROYALMAIL_CLIENT_ID, c.SHIPLOG_ROYALMAIL_CLIENT_SECRET)
  return [
    api(
      'dhl',
      c.SHIPLOG_DHL_API_KEY ? dhlApi({ url: c.SHIPLOG_DHL_API_URL, key: c.SHIPLOG_DHL_API_KEY }) : undefined,
      c.SHIPLOG_DHL_RATE_LIMIT,
      c.SHIPLOG_DHL_MAX_REQUESTS_PER_DAY,
    ),
    api(
      'laposte',
      c.SHIPLOG_LAPOSTE_API_KEY
        ? laposteApi({ url: c.SHIPLOG_LAPOSTE_API_URL, key: c.SHIPLOG_LAPOSTE_API_KEY })
        : undefined,
      c.SHIPLOG_LAPOSTE_RATE_LIMIT,
      c.SHIPLOG_LAPOSTE_MAX_REQUESTS_PER_DAY,
    ),
    api('ups', ups && upsApi(ups), c.SHIPLOG_UPS_RATE_LIMIT, c.SHIPLOG_UPS_MAX_REQUESTS_PER_DAY),
    api('fedex', fedex && fedexApi(fedex), c.SHIPLOG_FEDEX_RATE_LIMIT, c.SHIPLOG_FEDEX_MAX_REQUESTS_PER_DAY),
    api('usps', usps && uspsApi(usps), c.SHIPLOG_USPS_RATE_LIMIT, c.SHIPLOG_USPS_MAX_REQUESTS_PER_DAY),
    api(
      'postnl',
      c.SHIPLOG_POSTNL_API_KEY
        ? postnlApi({ url: c.SHIPLOG_POSTNL_API_URL, key: c.SHIPLOG_POSTNL_API_KEY })
        : undefined,
      c.SHIPLOG_POSTNL_RATE_LIMIT,
      c.SHIPLOG_POSTNL_MAX_REQUESTS_PER_DAY,
    ),
    api(
      'gls',
      c.SHIPLOG_GLS_USERNAME && c.SHIPLOG_GLS_PASSWORD
        ? glsApi({ url: c.SHIPLOG_GLS_API_URL, username: c.SHIPLOG_GLS_USERNAME, password: c.SHIPLOG_GLS_PASSWORD })
        : undefined,
      c.SHIPLOG_GLS_RATE_LIMIT,
      c.SHIPLOG_GLS_MAX_REQUESTS_PER_DAY,
    ),
    api(
      'royal_mail',
      royalMail && royalMailApi(royalMail),
      c.SHIPLOG_ROYALMAIL_RATE_LIMIT,
      c.SHIPLOG_ROYALMAIL_MAX_REQUESTS_PER_DAY,
    ),
  ]
}
