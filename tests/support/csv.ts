import { pickupPointColumns } from '../../shared/domain/pickup-points/row.ts'

/** A pickup point CSV in the spec's layout; each row gives only the columns it sets. */
export function pickupPointCsv(
  rows: Record<string, string>[],
  columns: readonly string[] = pickupPointColumns,
): string {
  return `${[columns.join(';'), ...rows.map((r) => columns.map((c) => r[c] ?? '').join(';'))].join('\n')}\n`
}

export const point = (merchantId: string, extra: Record<string, string> = {}) => ({
  merchant_id: merchantId,
  name: `Shop ${merchantId}`,
  address1: '1 rue de la Paix',
  city: 'Paris',
  postal_code: '75002',
  country_code: 'FR',
  ...extra,
})

export const csvForm = (csv: string, filename = 'points.csv') => {
  const form = new FormData()
  form.append('file', new Blob([csv], { type: 'text/csv' }), filename)
  return form
}
