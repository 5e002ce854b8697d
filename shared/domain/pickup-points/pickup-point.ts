import type { EventData } from '../events/index.ts'
import type { PickupPointFields } from '../events/pickup-point-events.ts'
import type { IdSource } from '../ids.ts'

/** A pickup point as an import needs it: its id and the fields it holds now. */
export interface PickupPointState {
  id: number
  fields: PickupPointFields
}

/** Merchant ids are merchant strings: escaped so any of them is a safe stream name. */
export const pickupPointStream = (accountId: number, merchantId: string) =>
  `pickuppoint-${accountId}_${encodeURIComponent(merchantId)}`

/**
 * Where a point is, as a carrier's pickup event and an import both say it:
 * the country and the postcode, without spaces, dashes or case.
 */
export const pickupPlace = (countryCode: string, postalCode: string) =>
  `${countryCode.toUpperCase()}|${postalCode.replace(/[\s-]/g, '').toUpperCase()}`

/**
 * Whether two street lines name the same place, as a carrier and a merchant
 * write it differently (`12 BD DE LA CROIX ROUSSE`, `12 boulevard de la
 * Croix-Rousse`): the same house number, and a longer word in common.
 */
export function sameStreet(a: string, b: string): boolean {
  const [x, y] = [wordsOf(a), wordsOf(b)]
  const number = (words: string[]) => words.find((w) => /^\d/.test(w))
  if (number(x) !== number(y)) return false
  return x.some((w) => w.length >= 4 && !/^\d/.test(w) && y.includes(w))
}
const wordsOf = (line: string) =>
  line
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)

/** One checked row of an import: the whole point, replacing what it was. */
export interface ImportPickupPoint {
  fields: PickupPointFields
  job_id: number
  line: number
  at: number
  ids: Pick<IdSource, 'next'>
}

/** A new point is created; a known one is replaced, unless the row repeats it exactly. */
export function decideImportRow(
  command: ImportPickupPoint,
  state: PickupPointState | undefined,
): { type: 'PickupPointImported'; data: EventData<'PickupPointImported'> }[] {
  if (state && sameFields(state.fields, command.fields)) return []
  const { fields, job_id, line, at } = command
  return [
    {
      type: 'PickupPointImported',
      data: { pickup_point_id: state?.id ?? command.ids.next(), fields, job_id, line, at },
    },
  ]
}

export const evolvePickupPointState = (
  state: PickupPointState | undefined,
  data: EventData<'PickupPointImported'>,
): PickupPointState => ({ id: state?.id ?? data.pickup_point_id, fields: data.fields })

/** Fields come in the schema's order from the row checker and from events alike. */
const sameFields = (a: PickupPointFields, b: PickupPointFields) =>
  JSON.stringify(Object.keys(b).map((k) => a[k as keyof PickupPointFields])) === JSON.stringify(Object.values(b))
