import { countryName } from '../contacts/countries.ts'
import { COUNTRY_CODE_MESSAGE, LIMITS, TIME_OF_DAY, TIME_OF_DAY_MESSAGE } from '../fields.ts'
import { weekdays, type OpeningHours, type PickupPointFields, type Weekday } from '../events/pickup-point-events.ts'

const hourParts = ['am_opening', 'am_closing', 'pm_opening', 'pm_closing'] as const

/** The columns of the pickup point CSV, in the spec's order. */
export const pickupPointColumns = [
  'merchant_id',
  'merchant_id_2',
  'name',
  'address1',
  'address2',
  'city',
  'postal_code',
  'state_code',
  'country_code',
  'gps_lat',
  'gps_long',
  'phone',
  ...weekdays.flatMap((d) => hourParts.map((p) => `${d}_${p}` as const)),
] as const
type Column = (typeof pickupPointColumns)[number]

export const requiredColumns = [
  'merchant_id',
  'name',
  'address1',
  'city',
  'postal_code',
  'country_code',
] as const satisfies Column[]

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
export function rowChecker(
  header: readonly string[],
): { ok: true; checker: RowChecker } | { ok: false; missing: string[] } {
  const names = header.map((h) => h.trim())
  const missing = requiredColumns.filter((c) => !names.includes(c))
  if (missing.length > 0) return { ok: false, missing }
  const at = (column: Column): Cell => ({ column, position: names.indexOf(column) })
  const cells = pickupPointColumns.map(at).filter((c) => c.position >= 0)
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
      // Cells that do not line up with the header cannot be read by column.
      if (record.length !== names.length) {
        const reason = `has ${record.length} cells where the header has ${names.length}`
        const errors: Record<string, string> = { details: `Invalid pickup point: the row ${reason}`, row: reason }
        return { ok: false, errors }
      }
      const faults = new Faults()
      for (const cell of cells) {
        if ((record[cell.position]?.length ?? 0) > LIMITS.csvCell)
          faults.add(cell, `must be at most ${LIMITS.csvCell} characters`)
      }
      for (const cell of required) if (text(record, cell) === null) faults.add(cell, 'is required')
      const country = text(record, countryCode)?.toUpperCase() ?? null
      if (country !== null && countryName(country) === null) faults.add(countryCode, COUNTRY_CODE_MESSAGE)
      const gps_lat = coordinate(record, gpsLat, 90, faults)
      const gps_long = coordinate(record, gpsLong, 180, faults)
      const opening_hours = {} as Record<Weekday, OpeningHours>
      for (const { day, am, pm } of days) {
        const am_opening = time(record, am.opening, faults)
        const am_closing = time(record, am.closing, faults)
        checkHalfDay(am, am_opening, am_closing, faults)
        const pm_opening = time(record, pm.opening, faults)
        const pm_closing = time(record, pm.closing, faults)
        checkHalfDay(pm, pm_opening, pm_closing, faults)
        opening_hours[day] = { am_opening, am_closing, pm_opening, pm_closing }
      }
      if (faults.count > 0) return { ok: false, errors: { details: sentenceOf(faults.errors), ...faults.errors } }
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

/*
 * The checks of one cell are functions of the module, not closures made per
 * row: a row would allocate them all again, and under tsx each closure is
 * also named through Object.defineProperty (esbuild's keepNames).
 */

/** A row's faults, by column, in the order they were found. */
class Faults {
  readonly errors: Record<string, string> = {}
  count = 0
  add(cell: Cell, reason: string) {
    this.errors[cell.column] = reason
    this.count++
  }
  has(cell: Cell) {
    return this.count > 0 && cell.column in this.errors
  }
}

function coordinate(record: readonly string[], cell: Cell, limit: number, faults: Faults) {
  const v = text(record, cell)
  if (v === null) return null
  const n = Number(v)
  if (DECIMAL.test(v) && Math.abs(n) <= limit) return n
  faults.add(cell, `must be a decimal number from -${limit} to ${limit}`)
  return null
}

function time(record: readonly string[], cell: Cell, faults: Faults) {
  const v = text(record, cell)
  if (v === null || TIME_OF_DAY.test(v)) return v
  faults.add(cell, TIME_OF_DAY_MESSAGE)
  return null
}

/** A half day needs both its times, the closing after the opening; a malformed time is reported as that alone. */
function checkHalfDay(h: HalfDay, open: string | null, close: string | null, faults: Faults) {
  if (faults.has(h.opening) || faults.has(h.closing)) return
  if (open === null && close !== null) faults.add(h.opening, h.openingRequired)
  else if (open !== null && close === null) faults.add(h.closing, h.closingRequired)
  else if (open !== null && close !== null && open >= close) faults.add(h.closing, h.closingAfter)
}

/**
 * The row's faults in one sentence: a failed sub-request of a job answers
 * `{errors: {details}}` like every v2 error, beside one key per column at fault.
 */
const sentenceOf = (errors: Record<string, string>) =>
  `Invalid pickup point: ${Object.entries(errors)
    .map(([column, why]) => `${column} ${why}`)
    .join('; ')}`

/** A row's trimmed value in a column; null when the file lacks the column or the cell is blank. */
const text = (record: readonly string[], cell: Cell): string | null => record[cell.position]?.trim() || null
