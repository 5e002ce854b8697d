import { z } from 'zod'
import {
  boundedText,
  countryCode,
  customVariables,
  dateTime,
  emailAddress,
  LIMITS,
} from '../../shared/domain/fields.ts'

/** Most trackers one POST /v1/trackers may carry. */
export const MAX_TRACKERS_PER_REQUEST = 1000

/** An optional string; null clears the value where clearing makes sense. */
const optionalText = boundedText(LIMITS.shortText).nullish()
const identifier = boundedText(LIMITS.identifier).trim().min(1, 'must not be empty')

/** One item of POST /v1/trackers, as the spec lists it. */
export const trackerItemSchema = z.object({
  order_number: identifier,
  tracking_number: identifier,
  address_city: optionalText,
  address_country: z.string().trim().pipe(countryCode).nullish(),
  address_name: optionalText,
  address_state: optionalText,
  address_street: boundedText(LIMITS.longText).nullish(),
  address_zip: optionalText,
  carrier_code: optionalText,
  carrier_service_code: optionalText,
  custom_variables: customVariables.nullish(),
  email: emailAddress.nullish(),
  expected_delivery_at: dateTime.nullish(),
  first_name: optionalText,
  last_name: optionalText,
  language_code: z.string().trim().min(2).max(10).optional(),
  mute_notifications: z.boolean().optional(),
  order_date: dateTime.nullish(),
  phone: optionalText,
  untracked_carrier_name: optionalText,
})

/** One item of `POST /v1/trackers`: an order, its fulfillment and a tracker in one. */
export type TrackerItem = z.infer<typeof trackerItemSchema>

export const upsertTrackersBody = z.object({
  trackers: z
    .array(trackerItemSchema)
    .max(MAX_TRACKERS_PER_REQUEST, `at most ${MAX_TRACKERS_PER_REQUEST} items per request`),
})

export const upsertTrackersResponse = z.object({
  trackers: z.array(
    z.object({
      id: z.number().int(),
      order_id: z.number().int(),
      fulfillment_id: z.number().int(),
      order_number: z.string(),
      tracking_number: z.string(),
      created: z.boolean(),
    }),
  ),
})
export type TrackerOutcome = z.infer<typeof upsertTrackersResponse>['trackers'][number]
