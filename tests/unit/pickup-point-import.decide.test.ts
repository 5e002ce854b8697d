import t from 'tap'
import type { EventData } from '../../shared/domain/events/index.ts'
import { decideImportRow, evolvePickupPointState } from '../../shared/domain/pickup-points/pickup-point.ts'
import { pickupPointColumns, rowChecker } from '../../shared/domain/pickup-points/row.ts'
import { countingIds, specOf } from '../support/decider.ts'

type Imported = { type: 'PickupPointImported'; data: EventData<'PickupPointImported'> }
const given = specOf<Parameters<typeof decideImportRow>[0], ReturnType<typeof evolvePickupPointState>, Imported>({
  decide: decideImportRow,
  evolve: (s, e) => evolvePickupPointState(s, e.data),
})

const header = rowChecker([...pickupPointColumns])
if (!header.ok) throw new Error('the full header must be accepted')
const row = (cells: Record<string, string>) => pickupPointColumns.map((c) => cells[c] ?? '')
const valid = {
  merchant_id: 'P1',
  name: 'Relais',
  address1: '1 rue A',
  city: 'Lyon',
  postal_code: '69001',
  country_code: 'fr',
}
const fieldsOf = (cells: Record<string, string>) => {
  const check = header.checker.check(row(cells))
  if (!check.ok) throw new Error(JSON.stringify(check.errors))
  return check.fields
}
const importRow = (cells: Record<string, string>, line = 2, at = 100) => ({
  fields: fieldsOf(cells),
  job_id: 9,
  line,
  at,
  ids: countingIds(700),
})
const imported = (id: number, cells: Record<string, string>, line = 2, at = 100): Imported => ({
  type: 'PickupPointImported',
  data: { pickup_point_id: id, fields: fieldsOf(cells), job_id: 9, line, at },
})

t.test('a new merchant_id creates a point with a new id', async (t) => {
  given([])
    .when(importRow(valid))
    .thenEvents(t, [imported(700, valid)])
})

t.test('a known merchant_id is replaced and keeps its id', async (t) => {
  const moved = { ...valid, city: 'Paris', postal_code: '75001' }
  given([imported(42, valid)])
    .when(importRow(moved, 3, 200))
    .thenEvents(t, [imported(42, moved, 3, 200)])
})

t.test('a row that repeats the point exactly records nothing', async (t) => {
  given([imported(42, valid)])
    .when(importRow(valid, 5, 300))
    .thenEvents(t, [])
})

t.test('validation: the header needs the required columns', async (t) => {
  const missing = rowChecker(['merchant_id', 'name'])
  t.match(missing, { ok: false, missing: ['address1', 'city', 'postal_code', 'country_code'] })
})

t.test('validation: each rule names its column', async (t) => {
  const check = header.checker.check(
    row({
      ...valid,
      name: '',
      country_code: 'FRA',
      gps_lat: '91',
      monday_am_opening: '9h',
      monday_am_closing: '12:00',
    }),
  )
  t.equal(check.ok, false)
  if (check.ok) return
  t.match(check.errors, { name: /required/, country_code: /ISO 3166-1/, gps_lat: /./, monday_am_opening: /HH:MM/ })
})

t.test('validation: an opening must come before its closing', async (t) => {
  const check = header.checker.check(row({ ...valid, tuesday_pm_opening: '18:00', tuesday_pm_closing: '14:00' }))
  t.equal(check.ok, false)
  if (!check.ok) t.ok(Object.keys(check.errors).some((k) => k.startsWith('tuesday_pm')))
})
