import type pg from 'pg'
import { documentColumnsOf, lookupWhere, missingViewColumn, withPending } from './sql-tables.ts'
import {
  groupKeys,
  viewBytesOf,
  type CollectionSpec,
  type FindQuery,
  type DocumentReads,
  type ReadStore,
  type StoredDocument,
} from './port.ts'
import { fieldColumn } from './postgres-tables.ts'

/* The PostgreSQL read store's reads: documents by id, key or field, and pages of documents or of their views. */

const operators = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

interface Row {
  account_id: number
  id: number
  key: string
  revision: number
  doc: unknown
  /** A collection with `pending`: the events appended since the document was written. */
  pending?: string | null
}

/** A stored row as its document, with the events pending on it folded in. */
const toStored = <D>(spec: CollectionSpec, r: Row): StoredDocument<D> =>
  withPending<D>(
    spec,
    { accountId: r.account_id, id: r.id, key: r.key, revision: r.revision, doc: r.doc as D },
    r.pending,
  )

/** The WHERE clauses of an account's documents the conditions select, with their parameters and how to add one. */
function filterOf(spec: CollectionSpec, query: Pick<FindQuery, 'accountId' | 'where'>) {
  const params: unknown[] = [query.accountId]
  const clauses = ['account_id = $1']
  const param = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  for (const c of query.where ?? [])
    clauses.push(
      c.op === 'in'
        ? `${fieldColumn(spec, c.field)} = ANY(${param(c.values)})`
        : `${fieldColumn(spec, c.field)} ${operators[c.op]} ${param(c.value)}`,
    )
  return { clauses, params, param }
}

/**
 * A page in descending id order (ascending from a `startingAfter` cursor,
 * then flipped), one more row than asked to tell whether there is more.
 */
async function pageRows<R>(pool: pg.Pool, spec: CollectionSpec, query: FindQuery, select: string) {
  const { clauses, params, param } = filterOf(spec, query)
  if (query.startingAfter !== undefined) clauses.push(`id > ${param(query.startingAfter)}`)
  if (query.endingBefore !== undefined) clauses.push(`id < ${param(query.endingBefore)}`)
  const forward = query.startingAfter !== undefined && query.endingBefore === undefined
  const order = forward ? 'ASC' : 'DESC'
  const { rows } = await pool.query(
    `SELECT ${select} FROM ${spec.name} WHERE ${clauses.join(' AND ')} ORDER BY id ${order} LIMIT ${param(query.limit + 1)}`,
    params,
  )
  const page = (rows as R[]).slice(0, query.limit)
  return { rows: forward ? page.reverse() : page, hasMore: rows.length > query.limit }
}

/** The store's reads: documents by id, key or indexed field, and pages of documents or of their views. */
export function postgresReads(
  pool: pg.Pool,
  specOf: (collection: string) => CollectionSpec,
): DocumentReads & Pick<Required<ReadStore>, 'pendingOf'> {
  const rows = async (sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as Row[]
  /** The documents a query selects, given the columns to read, with their pending events folded in. */
  const documents = async <D>(spec: CollectionSpec, sql: (columns: string) => string, params: unknown[]) =>
    (await rows(sql(documentColumnsOf(spec)), params)).map((r) => toStored<D>(spec, r))
  /** Documents of every account at a field's value, by an index across accounts (see acrossAccounts). */
  const lookupAll = async <D>(collection: string, field: string, value: string, limit: number) => {
    const spec = specOf(collection)
    fieldColumn(spec, field)
    const { condition, values } = lookupWhere(spec, field, value, '$1')
    return documents<D>(
      spec,
      (columns) => `SELECT ${columns} FROM ${spec.name} WHERE ${condition} LIMIT $${values.length + 1}`,
      [...values, limit],
    )
  }
  return {
    async get<D>(collection: string, accountId: number, id: number) {
      const spec = specOf(collection)
      const [found] = await documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE account_id = $1 AND id = $2`,
        [accountId, id],
      )
      return found
    },
    async getByKey<D>(collection: string, key: string) {
      const spec = specOf(collection)
      const [found] = await documents<D>(spec, (columns) => `SELECT ${columns} FROM ${spec.name} WHERE key = $1`, [key])
      return found
    },
    async getManyByKey<D>(collection: string, keys: readonly string[]) {
      // No keys, no round trip: a projector's batch of new orders asks for none, once a batch.
      if (keys.length === 0) return new Map()
      const spec = specOf(collection)
      const found = await documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE key = ANY($1::text[])`,
        [keys],
      )
      return new Map(found.map((d) => [d.key, d]))
    },
    async lookup<D>(collection: string, field: string, value: string) {
      return (await lookupAll<D>(collection, field, value, 1))[0]
    },
    lookupAll,
    async lookupDue<D>(collection: string, field: string, upTo: number, limit: number) {
      const spec = specOf(collection)
      const column = fieldColumn(spec, field)
      return documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE ${column} <= $1 ORDER BY ${column} LIMIT $2`,
        [upTo, limit],
      )
    },
    async keysByField(collection, accountId, field, values) {
      const spec = specOf(collection)
      const column = fieldColumn(spec, field)
      const { rows: found } = await pool.query(
        `SELECT ${column} AS value, key FROM ${spec.name} WHERE account_id = $1 AND ${column} = ANY($2::text[])`,
        [accountId, values],
      )
      return groupKeys(found as { value: string; key: string }[])
    },
    async count(collection: string, query: Pick<FindQuery, 'accountId' | 'where'>, upTo?: number) {
      const spec = specOf(collection)
      const { clauses, params } = filterOf(spec, query)
      const where = clauses.join(' AND ')
      const { rows: counted } = await pool.query(
        upTo === undefined
          ? `SELECT COUNT(*)::int AS n FROM ${spec.name} WHERE ${where}`
          : `SELECT COUNT(*)::int AS n FROM (SELECT 1 FROM ${spec.name} WHERE ${where} LIMIT ${Math.max(0, Math.floor(upTo))}) up_to`,
        params,
      )
      return (counted[0] as { n: number }).n
    },
    async find<D>(collection: string, query: FindQuery) {
      const spec = specOf(collection)
      const page = await pageRows<Row>(pool, spec, query, documentColumnsOf(spec))
      return { docs: page.rows.map((r) => toStored<D>(spec, r)), hasMore: page.hasMore }
    },
    async findView(collection, query, view) {
      const spec = specOf(collection)
      if (!spec.views?.includes(view)) throw new Error(`${view} is not a view of ${collection}`)
      const page = await pageRows<{ id: number; v: string | null }>(pool, spec, query, `id, v_${view} AS v`)
      return {
        views: page.rows.map((r) => (r.v === null ? null : viewBytesOf(Buffer.from(r.v)))),
        ids: page.rows.map((r) => r.id),
        hasMore: page.hasMore,
      }
    },
    async missingViews<D>(collection: string, limit: number) {
      const spec = specOf(collection)
      const marker = missingViewColumn(spec)
      if (!marker) throw new Error(`${collection} does not fill its views when idle`)
      return documents<D>(
        spec,
        (columns) => `SELECT ${columns} FROM ${spec.name} WHERE ${marker} IS NULL ORDER BY id DESC LIMIT $1`,
        [limit],
      )
    },
    async pendingOf(collection: string, keys: readonly string[]) {
      const spec = specOf(collection)
      if (!spec.pending) throw new Error(`${collection} keeps no pending events`)
      const { rows: found } = await pool.query(
        `SELECT key, revision, pending_count AS pending FROM ${spec.name} WHERE key = ANY($1::text[])`,
        [keys],
      )
      return new Map(
        (found as { key: string; revision: number; pending: number }[]).map((r) => [
          r.key,
          { revision: r.revision, pending: r.pending },
        ]),
      )
    },
  }
}
