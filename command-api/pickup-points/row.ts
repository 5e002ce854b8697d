import { countryName } from '../../shared/contacts/contacts.ts'
import { COUNTRY_CODE_MESSAGE, TIME_OF_DAY, TIME_OF_DAY_MESSAGE } from '../../shared/fields.ts'
import { weekdays, type OpeningHours, type PickupPointFields, type Weekday } from '../../shared/events/pickup-point-events.ts'

const hourParts = ['am_opening', 'am_closing', 'pm_opening', 'pm_closing'] as const

/** The columns of the pickup point CSV, in the spec's order. */
export const pickupPointColumns = [
  'merchant_id', 'merchant_id_2', 'name', 'address1', 'address2', 'city', 'postal_code', 'state_code', 'country_code',
  'gps_lat', 'gps_long', 'phone',
  ...weekdays.flatMap((d) => hourParts.map((p) => `${d}_${p}` as const)),
] as const
type Column = (typeof pickupPointColumns)[number]

export const requiredColumns = ['merchant_id', 'name', 'address1', 'city', 'postal_code', 'country_code'] as const satisfies Column[]

export type RowCheck = { ok: true; fields: PickupPointFields } | { ok: false; errors: Record<string, string> }

/** Checks the data rows of one file, by the positions its header gave the columns. Pure. */
export interface RowChecker {
  check(record: readonly string[]): RowCheck
  /** The row's merchant_id as given, for the results of rows that fail. */
  merchantId(record: readonly string[]): string | null
}

const DECIMAL = /^-?\d+(\.\d+)?$/

/** A column and where it sits in the file's records (-1: the file lacks it). */
type Cell = { column: Column; position: number }
type HalfDay = { opening: Cell; closing: Cell; openingRequired: string; closingRequired: string; closingAfter: string }

/**
 * The checker for a file's rows, from its header row (columns come in any
 * order, unknown ones are ignored), or the required columns the header lacks.
 * Every column's position and every message is resolved here, once per file:
 * thousands of rows a second go through `check`.
 */
export function rowChecker(header: readonly string[]): { ok: true; checker: RowChecker } | { ok: false; missing: string[] } {
  const names = header.map((h) => h.trim())
  const missing = requiredColumns.filter((c) => !names.includes(c))
  if (missing.length > 0) return { ok: false, missing }
  const at = (column: Column): Cell => ({ column, position: names.indexOf(column) })
  const required = requiredColumns.map(at)
  const merchantId = at('merchant_id')
  const merchantId2 = at('merchant_id_2')
  const name = at('name')
  const address1 = at('address1')
  const address2 = at('address2')
  const city = at('city')
  const postalCode = at('postal_code')
  const stateCode = at('state_code')
  const countryCode = at('country_code')
  const gpsLat = at('gps_lat')
  const gpsLong = at('gps_long')
  const phone = at('phone')
  const days = weekdays.map((day) => {
    const half = (h: 'am' | 'pm'): HalfDay => ({
      opening: at(`${day}_${h}_opening`),
      closing: at(`${day}_${h}_closing`),
      openingRequired: `is required with ${day}_${h}_closing`,
      closingRequired: `is required with ${day}_${h}_opening`,
      closingAfter: `must be after ${day}_${h}_opening`,
    })
    return { day, am: half('am'), pm: half('pm') }
  })

  const checker: RowChecker = {
    merchantId: (record) => text(record, merchantId),
    check(record) {
      const errors: Record<string, string> = {}
      let failed = false
      const fail = (cell: Cell, reason: string) => {
        errors[cell.column] = reason
        failed = true
      }
      for (const cell of required) if (text(record, cell) === null) fail(cell, 'is required')
      const country = text(record, countryCode)?.toUpperCase() ?? null
      if (country !== null && countryName(country) === null) fail(countryCode, COUNTRY_CODE_MESSAGE)
      const coordinate = (cell: Cell, limit: number) => {
        const v = text(record, cell)
        if (v === null) return null
        const n = Number(v)
        if (DECIMAL.test(v) && Math.abs(n) <= limit) return n
        fail(cell, `must be a decimal number from -${limit} to ${limit}`)
        return null
      }
      const time = (cell: Cell) => {
        const v = text(record, cell)
        if (v === null || TIME_OF_DAY.test(v)) return v
        fail(cell, TIME_OF_DAY_MESSAGE)
        return null
      }
      // A half day needs both its times, the closing after the opening; a malformed time is reported as that alone.
      const halfDay = (h: HalfDay): [string | null, string | null] => {
        const open = time(h.opening)
        const close = time(h.closing)
        if (failed && (h.opening.column in errors || h.closing.column in errors)) return [open, close]
        if (open === null && close !== null) fail(h.opening, h.openingRequired)
        else if (open !== null && close === null) fail(h.closing, h.closingRequired)
        else if (open !== null && close !== null && open >= close) fail(h.closing, h.closingAfter)
        return [open, close]
      }
      const gps_lat = coordinate(gpsLat, 90)
      const gps_long = coordinate(gpsLong, 180)
      const opening_hours = {} as Record<Weekday, OpeningHours>
      for (const { day, am, pm } of days) {
        const [am_opening, am_closing] = halfDay(am)
        const [pm_opening, pm_closing] = halfDay(pm)
        opening_hours[day] = { am_opening, am_closing, pm_opening, pm_closing }
      }
      if (failed) return { ok: false, errors: { details: sentenceOf(errors), ...errors } }
      return {
        ok: true,
        fields: {
          merchant_id: text(record, merchantId)!,
          merchant_id_2: text(record, merchantId2),
          name: text(record, name)!,
          address1: text(record, address1)!,
          address2: text(record, address2),
          city: text(record, city)!,
          postal_code: text(record, postalCode)!,
          state_code: text(record, stateCode),
          country_code: country!,
          gps_lat,
          gps_long,
          phone: text(record, phone),
          opening_hours,
        },
      }
    },
  }
  return { ok: true, checker }
}

/**
 * The row's faults in one sentence: a failed sub-request of a job answers
 * `{errors: {details}}` like every v2 error, beside one key per column at fault.
 */
const sentenceOf = (errors: Record<string, string>) =>
  `Invalid pickup point: ${Object.entries(errors).map(([column, why]) => `${column} ${why}`).join('; ')}`

/** A row's trimmed value in a column; null when the file lacks the column or the cell is blank. */
const text = (record: readonly string[], cell: Cell): string | null => record[cell.position]?.trim() || null
