import { z } from 'zod'
import { timeOfDay } from '../fields.ts'

const time = timeOfDay.nullable()
export const openingHours = z.object({ am_opening: time, am_closing: time, pm_opening: time, pm_closing: time })
export type OpeningHours = z.infer<typeof openingHours>
export const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
export type Weekday = (typeof weekdays)[number]
/** Every day's hours: an object of the seven days rather than a record, which zod checks as fast as any object. */
const weekHours = z.object(
  Object.fromEntries(weekdays.map((d) => [d, openingHours])) as Record<Weekday, typeof openingHours>,
)

/** A pickup point's fields as an import sets them: the whole point, replacing what it was. */
export const pickupPointFields = z.object({
  merchant_id: z.string(),
  merchant_id_2: z.string().nullable(),
  name: z.string(),
  address1: z.string(),
  address2: z.string().nullable(),
  city: z.string(),
  postal_code: z.string(),
  state_code: z.string().nullable(),
  country_code: z.string(),
  gps_lat: z.number().nullable(),
  gps_long: z.number().nullable(),
  phone: z.string().nullable(),
  opening_hours: weekHours,
})
export type PickupPointFields = z.infer<typeof pickupPointFields>

/** Events of a pickup point stream (`pickuppoint-<accountId>_<merchant id>`). */
export const pickupPointEvents = {
  PickupPointImported: z.object({
    pickup_point_id: z.number().int(),
    fields: pickupPointFields,
    job_id: z.number().int(),
    line: z.number().int(),
    at: z.number().int(),
  }),
} as const
