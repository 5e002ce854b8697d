import { z } from 'zod'
import {
  boundedText,
  countryCode,
  customVariables,
  dateTime,
  emailAddress,
  LIMITS,
  languageCode,
} from '../../shared/domain/fields.ts'
import { fulfillmentStatuses } from '../../shared/domain/orders/upsert-order.ts'

/*
 * The body of POST /v2/orders, lenient where real store plugins are: any
 * optional field may be null, unknown keys are dropped, thumbnail sizes may be
 * numbers, and `shipping_address.country` may hold a two-letter code. A wrong
 * type is still a 400 naming the field.
 */

const identifier = boundedText(LIMITS.identifier).trim().min(1, 'must not be empty')
const shortText = boundedText(LIMITS.shortText)
const longText = boundedText(LIMITS.longText)
/** Optional and nullable: null clears the field. */
const clearable = <T extends z.ZodType>(schema: T) => schema.nullable().optional()
/** Optional; null means "not sent" where the field cannot be empty. */
const absentIfNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined)
const count = z.number().int('must be an integer').min(0, 'must not be negative').max(1_000_000)
const size = z
  .union([z.number(), boundedText(20)])
  .nullish()
  .transform((v) => (v === null || v === undefined ? null : String(v)))

const lineItem = z.object({
  merchant_id: identifier,
  sku: clearable(shortText),
  name: clearable(longText),
  title: clearable(longText),
  variant_title: clearable(longText),
  description: clearable(longText),
  quantity: clearable(count),
  shipped_quantity: clearable(count),
  canceled_quantity: clearable(count),
  canceled: clearable(z.boolean()),
  requires_shipping: clearable(z.boolean()),
  thumbnail: clearable(z.object({ src: longText, width: size, height: size })),
  custom_variables: clearable(customVariables),
})

/** `country` holding a two-letter code is read as `country_code` (what plugins send). */
const address = z
  .object({
    address1: clearable(longText),
    address2: clearable(longText),
    city: clearable(shortText),
    comment: clearable(longText),
    company_title: clearable(shortText),
    country: clearable(shortText),
    country_code: clearable(countryCode),
    first_name: clearable(shortText),
    last_name: clearable(shortText),
    name: clearable(shortText),
    state: clearable(shortText),
    zip: clearable(shortText),
  })
  .transform(({ country, ...a }) =>
    a.country_code === undefined && country && /^[A-Za-z]{2}$/.test(country)
      ? { ...a, country_code: country.toUpperCase() }
      : a,
  )

const tracker = z.object({
  tracking_number: identifier,
  carrier_code: clearable(identifier),
  carrier_service_code: clearable(identifier),
  language_code: clearable(languageCode),
  line_items: absentIfNull(z.array(z.union([identifier, lineItem])).max(500)),
  expected_delivery_at: clearable(dateTime),
  custom_variables: clearable(customVariables),
  mute_notifications: absentIfNull(z.boolean()),
  untracked_carrier_name: clearable(shortText),
  untracked_carrier_url: clearable(longText),
})

const fulfillment = z.object({
  merchant_id: identifier,
  status_code: absentIfNull(z.enum(fulfillmentStatuses)),
  shipping_address: clearable(address),
  line_items: absentIfNull(z.array(lineItem).max(500)),
  custom_variables: clearable(customVariables),
  trackers: absentIfNull(z.array(tracker).max(LIMITS.trackersPerOrder)),
})

export const orderBody = z.object({
  merchant_id: identifier,
  order_number: absentIfNull(identifier),
  email: clearable(emailAddress),
  first_name: clearable(shortText),
  last_name: clearable(shortText),
  phone: clearable(shortText),
  ordered_at: clearable(dateTime),
  language_code: absentIfNull(languageCode),
  mute_notifications: absentIfNull(z.boolean()),
  canceled: absentIfNull(z.boolean()),
  custom_variables: clearable(customVariables),
  shipping_address: clearable(address),
  line_items: absentIfNull(z.array(lineItem).max(500)),
  fulfillments: absentIfNull(z.array(fulfillment).max(LIMITS.trackersPerOrder)),
})
export type OrderBody = z.infer<typeof orderBody>

/** The envelope of POST /v2/orders/batch_create: each order is checked on its own in the job. */
export const batchCreateBody = z.strictObject({
  orders: z
    .array(z.record(z.string(), z.unknown()), 'must be a list of orders')
    .min(1, 'needs at least one order')
    .max(100, 'holds at most 100 orders'),
})
