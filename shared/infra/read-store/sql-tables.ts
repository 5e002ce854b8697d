import { type CollectionSpec, perAccountFields } from './port.ts'

/* What the SQLite and PostgreSQL stores share of a collection's table: its view columns and query indexes. */

/** A collection's view columns, in the order its views are listed. */
export const viewColumns = (spec: CollectionSpec) => (spec.views ?? []).map((v) => `v_${v}`)

/** The column whose NULL marks a document of a `viewsWhenIdle` collection as missing its views (they are filled together). */
export const missingViewColumn = (spec: CollectionSpec) => (spec.viewsWhenIdle ? viewColumns(spec)[0] : undefined)

/**
 * A collection's query indexes, each as the suffix of its name and its
 * definition (`INDEX ON …`, the store names it): by id and by each field per
 * account, each lookup field and due field across accounts (a due field only
 * where set), and the documents missing their views.
 */
export function queryIndexes(spec: CollectionSpec): [suffix: string, definition: string][] {
  const table = spec.name
  const marker = missingViewColumn(spec)
  return [
    ['_by_account_id', `UNIQUE INDEX ON ${table} (account_id, id)`],
    ...perAccountFields(spec).map((f): [string, string] => [`_by_${f}`, `INDEX ON ${table} (account_id, f_${f}, id)`]),
    ...(spec.lookupFields ?? []).map((f): [string, string] => [`_across_${f}`, `INDEX ON ${table} (f_${f})`]),
    ...(spec.dueFields ?? []).map((f): [string, string] => [
      `_due_${f}`,
      `INDEX ON ${table} (f_${f}) WHERE f_${f} IS NOT NULL`,
    ]),
    ...(marker ? [['_missing_views', `INDEX ON ${table} (id) WHERE ${marker} IS NULL`] as [string, string]] : []),
  ]
}
