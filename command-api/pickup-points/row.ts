import { countryName } from '../../shared/contacts/contacts.ts'
import { weekdays, type PickupPointFields } from '../../shared/events/pickup-point-events.ts'

/** The columns of the pickup point CSV, in the spec's order. */
export const pickupPointColumns = [
  'merchant_id', 'merchant_id_2', 'name', 'address1', 'address2', 'city', 'postal_code', 'state_code', 'country_code',
  'gps_lat', 'gps_long', 'phone',
  ...weekdays.flatMap((d) => ['am_opening', 'am_closing', 'pm_opening', 'pm_closing'].map((p) => `${d}_${p}`)),
] as const

export const requiredColumns = ['merchant_id', 'name', 'address1', 'city', 'postal_code', 'country_code'] as const

export type Row = Partial<Record<string, string>>
export type RowCheck = { ok: true; fields: PickupPointFields } | { ok: false; errors: Record<string, string> }

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/
const DECIMAL = /^-?\d+(\.\d+)?$/

/** Columns the file's header lacks; empty when the header is usable. */
export const missingColumns = (header: readonly string[]) => requiredColumns.filter((c) => !header.includes(c))

/** Validates one row: the reason for each bad column, or the pickup point's fields. Pure. */
export function checkRow(row: Row): RowCheck {
  const errors: Record<string, string> = {}
  const text = (column: string) => {
    const v = row[column]?.trim()
    return v ? v : null
  }
  for (const column of requiredColumns) if (!text(column)) errors[column] = 'is required'
  const country = text('country_code')?.toUpperCase() ?? null
  if (country && countryName(country) === null) errors.country_code = 'must be a 2-letter ISO 3166-1 country code'
  const coordinate = (column: string, limit: number) => {
    const v = text(column)
    if (v === null) return null
    const n = Number(v)
    if (!DECIMAL.test(v) || Math.abs(n) > limit) {
      errors[column] = `must be a decimal number from -${limit} to ${limit}`
      return null
    }
    return n
  }
  const gps_lat = coordinate('gps_lat', 90)
  const gps_long = coordinate('gps_long', 180)

  const opening_hours = {} as PickupPointFields['opening_hours']
  for (const day of weekdays) {
    const time = (part: string) => {
      const column = `${day}_${part}`
      const v = text(column)
      if (v !== null && !TIME.test(v)) errors[column] = 'must be a time HH:MM'
      return v !== null && TIME.test(v) ? v : null
    }
    const hours = { am_opening: time('am_opening'), am_closing: time('am_closing'), pm_opening: time('pm_opening'), pm_closing: time('pm_closing') }
    for (const half of ['am', 'pm'] as const) {
      const [open, close] = [hours[`${half}_opening`], hours[`${half}_closing`]]
      if ((open === null) !== (close === null) && !errors[`${day}_${half}_opening`] && !errors[`${day}_${half}_closing`]) {
        errors[`${day}_${half}_${open === null ? 'opening' : 'closing'}`] = `is required with ${day}_${half}_${open === null ? 'closing' : 'opening'}`
      } else if (open !== null && close !== null && open >= close) {
        errors[`${day}_${half}_closing`] = `must be after ${day}_${half}_opening`
      }
    }
    opening_hours[day] = hours
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  return {
    ok: true,
    fields: {
      merchant_id: text('merchant_id')!,
      merchant_id_2: text('merchant_id_2'),
      name: text('name')!,
      address1: text('address1')!,
      address2: text('address2'),
      city: text('city')!,
      postal_code: text('postal_code')!,
      state_code: text('state_code'),
      country_code: country!,
      gps_lat,
      gps_long,
      phone: text('phone'),
      opening_hours,
    },
  }
}
