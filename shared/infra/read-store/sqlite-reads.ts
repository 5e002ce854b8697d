import { documentColumnsOf, lookupWhere, missingViewColumn } from './sql-tables.ts'
import { groupKeys, type CollectionSpec, type DocumentReads, type FindQuery, type ReadStore } from './port.ts'
import {
  type Row,
  type SpecOf,
  type Statements,
  type Stored,
  fieldColumn,
  operators,
  toStored,
  viewOf,
} from './sqlite-statements.ts'

/* The embedded read store's reads: documents by id, key or field, and pages of documents or of their views. */

/** The WHERE clauses and their parameters of an account's documents the conditions select. */
function filterOf(spec: CollectionSpec, query: Pick<FindQuery, 'accountId' | 'where'>) {
  const clauses = ['account_id = ?']
  const params: unknown[] = [query.accountId]
  for (const c of query.where ?? []) {
    if (c.op === 'in') {
      clauses.push(`${fieldColumn(spec, c.field)} IN (${c.values.map(() => '?').join(', ')})`)
      params.push(...c.values)
      continue
    }
    clauses.push(`${fieldColumn(spec, c.field)} ${operators[c.op]} ?`)
    params.push(c.value)
  }
  return { clauses, params }
}

/**
 * A page in descending id order: chosen on the index alone (ids and rowids),
 * then only its rows are read, so a range filter sorts small index entries,
 * never whole documents.
 */
function pageRows<R>(sql: Statements, spec: CollectionSpec, query: FindQuery, select: string) {
  const { clauses, params } = filterOf(spec, query)
  if (query.startingAfter !== undefined) {
    clauses.push('id > ?')
    params.push(query.startingAfter)
  }
  if (query.endingBefore !== undefined) {
    clauses.push('id < ?')
    params.push(query.endingBefore)
  }
  // Going forward in time reads upwards from the cursor, then flips the page.
  const forward = query.startingAfter !== undefined && query.endingBefore === undefined
  const order = forward ? 'ASC' : 'DESC'
  const rows = sql
    .prepared<unknown[], R>(
      `SELECT ${select} FROM ${spec.name} t JOIN (
        SELECT rowid AS r FROM ${spec.name} WHERE ${clauses.join(' AND ')} ORDER BY id ${order} LIMIT ?
      ) page ON t.rowid = page.r ORDER BY t.id ${order}`,
    )
    .all(...params, query.limit + 1)
  const page = rows.slice(0, query.limit)
  return { rows: forward ? page.reverse() : page, hasMore: rows.length > query.limit }
}

/** The store's reads: by id, key or indexed field, and pages of documents or of their views. */
export function documentReads(sql: Statements, specOf: SpecOf): DocumentReads & Pick<Required<ReadStore>, 'pendingOf'> {
  /** A statement selecting a collection's documents (its table after FROM), with how each row is read. */
  const documents = <P extends unknown[]>(collection: string, from: (table: string) => string) => {
    const spec = specOf(collection)
    const statement = sql.prepared<P, Row>(`SELECT ${documentColumnsOf(spec)} FROM ${from(spec.name)}`)
    return { statement, stored: <D>(row: Row) => toStored<D>(spec, row) }
  }
  /** A statement of documents of every account at a field's value, by an index across accounts (see acrossAccounts). */
  const lookupStatement = (collection: string, field: string, value: string, limit: string) => {
    const spec = specOf(collection)
    fieldColumn(spec, field)
    const { condition, values } = lookupWhere(spec, field, value, '?')
    return { values, ...documents<unknown[]>(collection, (t) => `${t} WHERE ${condition} LIMIT ${limit}`) }
  }
  return {
    async get<D>(collection: string, accountId: number, id: number) {
      const { statement, stored } = documents<[number, number]>(
        collection,
        (t) => `${t} WHERE account_id = ? AND id = ?`,
      )
      const row = statement.get(accountId, id)
      return row && stored<D>(row)
    },
    async getByKey<D>(collection: string, key: string) {
      const { statement, stored } = documents<[string]>(collection, (t) => `${t} WHERE key = ?`)
      const row = statement.get(key)
      return row && stored<D>(row)
    },
    async getManyByKey<D>(collection: string, keys: readonly string[]) {
      // No keys, no statement: a projector's batch of new orders asks for none, once a batch.
      if (keys.length === 0) return new Map()
      // The keys as one JSON parameter: one statement for a projector's whole batch.
      const { statement, stored } = documents<[string]>(
        collection,
        (t) => `${t} WHERE key IN (SELECT value FROM json_each(?))`,
      )
      return new Map(statement.all(JSON.stringify(keys)).map((row) => [row.key, stored<D>(row)]))
    },
    // Every request's API key is looked up: one row got, not a list of one (half the time).
    async lookup<D>(collection: string, field: string, value: string) {
      const { statement, stored, values } = lookupStatement(collection, field, value, '1')
      const row = statement.get(...values)
      return row && stored<D>(row)
    },
    async lookupAll<D>(collection: string, field: string, value: string, limit: number) {
      const { statement, stored, values } = lookupStatement(collection, field, value, '?')
      return statement.all(...values, limit).map((r) => stored<D>(r))
    },
    async lookupDue<D>(collection: string, field: string, upTo: number, limit: number) {
      const column = fieldColumn(specOf(collection), field)
      const { statement, stored } = documents<[number, number]>(
        collection,
        (t) => `${t} WHERE ${column} <= ? ORDER BY ${column} LIMIT ?`,
      )
      return statement.all(upTo, limit).map((r) => stored<D>(r))
    },
    async keysByField(collection: string, accountId: number, field: string, values: readonly string[]) {
      const spec = specOf(collection)
      const column = fieldColumn(spec, field)
      const rows = sql
        .prepared<[number, string], { value: string; key: string }>(
          `SELECT ${column} AS value, key FROM ${spec.name} WHERE account_id = ? AND ${column} IN (SELECT value FROM json_each(?))`,
        )
        .all(accountId, JSON.stringify(values))
      return groupKeys(rows)
    },
    async count(collection: string, query: Pick<FindQuery, 'accountId' | 'where'>, upTo?: number) {
      const spec = specOf(collection)
      const { clauses, params } = filterOf(spec, query)
      const where = clauses.join(' AND ')
      const row = (
        upTo === undefined
          ? sql
              .prepared<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM ${spec.name} WHERE ${where}`)
              .get(...params)
          : sql
              .prepared<unknown[], { n: number }>(
                `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${spec.name} WHERE ${where} LIMIT ?)`,
              )
              .get(...params, upTo)
      ) as { n: number } | undefined
      return row?.n ?? 0
    },
    async find<D>(collection: string, query: FindQuery) {
      const spec = specOf(collection)
      const { rows, hasMore } = pageRows<Row>(sql, spec, query, documentColumnsOf(spec, true))
      return { docs: rows.map((r) => toStored<D>(spec, r)), hasMore }
    },
    async findView(collection, query, view) {
      const spec = specOf(collection)
      if (!spec.views?.includes(view)) throw new Error(`${view} is not a view of ${collection}`)
      const { rows, hasMore } = pageRows<{ id: number; v: Stored | null }>(
        sql,
        spec,
        query,
        `t.id AS id, t.v_${view} AS v`,
      )
      return { views: rows.map((r) => (r.v === null ? null : viewOf(r.v))), ids: rows.map((r) => r.id), hasMore }
    },
    async missingViews<D>(collection: string, limit: number) {
      const marker = missingViewColumn(specOf(collection))
      if (!marker) throw new Error(`${collection} does not fill its views when idle`)
      const { statement, stored } = documents<[number]>(
        collection,
        (t) => `${t} WHERE ${marker} IS NULL ORDER BY id DESC LIMIT ?`,
      )
      return statement.all(limit).map((r) => stored<D>(r))
    },
    async pendingOf(collection: string, keys: readonly string[]) {
      const spec = specOf(collection)
      if (!spec.pending) throw new Error(`${collection} keeps no pending events`)
      const rows = sql
        .prepared<[string], { key: string; revision: number; pending: number }>(
          `SELECT key, revision, pending_count AS pending FROM ${spec.name}
           WHERE key IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(keys))
      return new Map(rows.map((r) => [r.key, { revision: r.revision, pending: r.pending }]))
    },
  }
}
