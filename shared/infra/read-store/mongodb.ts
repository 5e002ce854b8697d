import {
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
  Long,
  MongoClient,
  MongoServerError,
} from 'mongodb'
import {
  acrossAccounts,
  checkViewNames,
  collectionSpecs,
  perAccountFields,
  groupKeys,
  shadowOf,
  viewBytesOf,
  type CollectionSpec,
  type DocumentReads,
  type DocumentWrite,
  type FindQuery,
  type ReadStore,
  type StoredDocument,
  wholeDocuments,
} from './port.ts'

interface Stored extends Document {
  _id: string
  accountId: number
  id: number
  revision: number
  doc: unknown
  f: Record<string, unknown>
}

const DUPLICATE_KEY = 11000
const operators = { eq: '$eq', gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' } as const

const toStored = <D>(s: Stored): StoredDocument<D> => ({
  accountId: s.accountId,
  id: s.id,
  key: s._id,
  revision: s.revision,
  doc: s.doc as D,
})

/**
 * Production read store on MongoDB through the official driver. A document's
 * _id is its source key, so a projection upsert is one keyed write; every index
 * starts with the account id and ends with the id, as in the embedded store.
 */
export async function createMongoReadStore(url: string, collections: readonly CollectionSpec[]): Promise<ReadStore> {
  const client = await new MongoClient(url).connect()
  const db = client.db() // the database named in the URL, "test" when it names none
  const createIndexes = async (spec: CollectionSpec) => {
    const c = db.collection<Stored>(spec.name)
    await c.createIndex({ accountId: 1, id: -1 }, { unique: true })
    for (const field of perAccountFields(spec)) await c.createIndex({ accountId: 1, [`f.${field}`]: 1, id: -1 })
    for (const field of spec.lookupFields ?? []) await c.createIndex({ [`f.${field}`]: 1 })
    for (const field of spec.dueFields ?? [])
      await c.createIndex({ [`f.${field}`]: 1 }, { partialFilterExpression: { [`f.${field}`]: { $type: 'number' } } })
    for (const [field, value] of Object.entries(spec.sweptValues ?? {}))
      await c.createIndex(
        { [`f.${field}`]: 1 },
        { partialFilterExpression: { [`f.${field}`]: value }, name: `swept_${field}_${value}` },
      )
    if (spec.viewsWhenIdle)
      await c.createIndex({ id: -1 }, { partialFilterExpression: { missingViews: true }, name: 'missing_views' })
  }
  for (const spec of collections) await createIndexes(spec)
  const checkpoints: Checkpoints = db.collection('checkpoints')
  const { specOf, joinShadow } = collectionSpecs(collections)
  const collection = (name: string) => db.collection<Stored>(specOf(name).name)

  return {
    kind: 'mongodb',
    ...documentReads(collection, specOf),
    async fillViews(name, views) {
      if (views.length === 0) return 0
      for (const item of views) checkViewNames(specOf(name), item.views)
      const filled = await collection(name).bulkWrite(
        views.map((item) => ({
          updateOne: {
            filter: { _id: item.key, revision: item.revision },
            update: { $set: { v: item.views, missingViews: false } },
          },
        })),
        { ordered: false },
      )
      return filled.modifiedCount
    },
    async commit(projections, writes, checkpoint) {
      await commitWrites(collection, checkpoints, specOf, projections, wholeDocuments(writes), checkpoint)
    },
    async checkpoint(projection) {
      const found = await checkpoints.findOne({ _id: projection })
      return found ? BigInt(found.position.toString()) : undefined
    },
    async prepareRebuild(name, shadowProjection) {
      await db
        .collection(shadowOf(specOf(name)).name)
        .drop()
        .catch(() => undefined)
      await checkpoints.deleteOne({ _id: shadowProjection })
      return joinShadow(name)
    },
    async completeRebuild(name, projection, shadowProjection) {
      const [live, rebuilt] = await Promise.all([
        checkpoints.findOne({ _id: projection }),
        checkpoints.findOne({ _id: shadowProjection }),
      ])
      if (!rebuilt || live?.position.greaterThan(rebuilt.position)) return false
      // renameCollection with dropTarget replaces the live collection in one step.
      await db.collection(shadowOf(specOf(name)).name).rename(name, { dropTarget: true })
      await checkpoints.updateOne({ _id: projection }, { $set: { position: rebuilt.position } }, { upsert: true })
      await checkpoints.deleteOne({ _id: shadowProjection })
      return true
    },
    async indexRebuild(name) {
      await createIndexes(shadowOf(specOf(name)))
    },
    joinRebuild: joinShadow,
    async reset(name, projection) {
      await collection(name).deleteMany({})
      await checkpoints.deleteOne({ _id: projection })
    },
    async close() {
      await client.close()
    },
  }
}

type Checkpoints = Collection<{ _id: string; position: Long }>
type CollectionOf = (name: string) => Collection<Stored>

/** The filter of an account's documents the conditions select. */
function filterOf(query: Pick<FindQuery, 'accountId' | 'where'>): Document {
  const filter: Document = { accountId: query.accountId }
  for (const c of query.where ?? []) {
    const test = c.op === 'in' ? { $in: c.values } : { [operators[c.op]]: c.value }
    filter[`f.${c.field}`] = { ...(filter[`f.${c.field}`] as Document | undefined), ...test }
  }
  return filter
}

/** A page in descending id order, on the (account, field, id) indexes. */
async function pageRows(collection: Collection<Stored>, query: FindQuery, projection?: Document) {
  const filter = filterOf(query)
  const id: Document = {}
  if (query.startingAfter !== undefined) id.$gt = query.startingAfter
  if (query.endingBefore !== undefined) id.$lt = query.endingBefore
  if (Object.keys(id).length > 0) filter.id = id
  const forward = query.startingAfter !== undefined && query.endingBefore === undefined
  const cursor = collection
    .find(filter)
    .sort({ id: forward ? 1 : -1 })
    .limit(query.limit + 1)
  const rows = await (projection ? cursor.project<Stored>(projection) : cursor).toArray()
  const page = rows.slice(0, query.limit)
  return { rows: forward ? page.reverse() : page, hasMore: rows.length > query.limit }
}

/** The store's reads: by id, key or indexed field, and pages of documents or of their views. */
function documentReads(collection: CollectionOf, specOf: (name: string) => CollectionSpec): DocumentReads {
  return {
    async get<D>(name: string, accountId: number, id: number) {
      const found = await collection(name).findOne({ accountId, id })
      return found ? toStored<D>(found) : undefined
    },
    async getByKey<D>(name: string, key: string) {
      const found = await collection(name).findOne({ _id: key })
      return found ? toStored<D>(found) : undefined
    },
    async getManyByKey<D>(name: string, keys: readonly string[]) {
      if (keys.length === 0) return new Map()
      const found = await collection(name)
        .find({ _id: { $in: [...keys] } })
        .toArray()
      return new Map(found.map((s) => [s._id, toStored<D>(s)]))
    },
    async lookup<D>(name: string, field: string, value: string) {
      acrossAccounts(specOf(name), field, value)
      const found = await collection(name).findOne({ [`f.${field}`]: value })
      return found ? toStored<D>(found) : undefined
    },
    async lookupAll<D>(name: string, field: string, value: string, limit: number) {
      acrossAccounts(specOf(name), field, value)
      const found = await collection(name)
        .find({ [`f.${field}`]: value })
        .limit(limit)
        .toArray()
      return found.map((s) => toStored<D>(s))
    },
    async lookupDue<D>(name: string, field: string, upTo: number, limit: number) {
      const found = await collection(name)
        // The partial index's own filter, so the planner can use it.
        .find({ [`f.${field}`]: { $type: 'number', $lte: upTo } })
        .sort({ [`f.${field}`]: 1 })
        .limit(limit)
        .toArray()
      return found.map((s) => toStored<D>(s))
    },
    async keysByField(name: string, accountId: number, field: string, values: readonly string[]) {
      const rows = await collection(name)
        .find({ accountId, [`f.${field}`]: { $in: [...values] } })
        .project<{ _id: string; f: Record<string, string> }>({ _id: 1, [`f.${field}`]: 1 })
        .toArray()
      return groupKeys(rows.map((r) => ({ value: r.f[field]!, key: r._id })))
    },
    async count(name: string, query: Pick<FindQuery, 'accountId' | 'where'>, upTo?: number) {
      return collection(name).countDocuments(filterOf(query), upTo === undefined ? {} : { limit: upTo })
    },
    async find<D>(name: string, query: FindQuery) {
      const { rows, hasMore } = await pageRows(collection(name), query)
      return { docs: rows.map((r) => toStored<D>(r)), hasMore }
    },
    async findView(name, query, view) {
      const { rows, hasMore } = await pageRows(collection(name), query, { id: 1, [`v.${view}`]: 1 })
      return {
        views: rows.map((r) => {
          const json = (r.v as Record<string, string> | undefined)?.[view]
          return json === undefined ? null : viewBytesOf(Buffer.from(json))
        }),
        ids: rows.map((r) => r.id),
        hasMore,
      }
    },
    async missingViews<D>(name: string, limit: number) {
      if (!specOf(name).viewsWhenIdle) throw new Error(`${name} does not fill its views when idle`)
      const found = await collection(name).find({ missingViews: true }).sort({ id: -1 }).limit(limit).toArray()
      return found.map((s) => toStored<D>(s))
    },
  }
}

/** A projector's commit: each collection's documents in one unordered bulk write, then the checkpoints. */
async function commitWrites(
  collection: CollectionOf,
  checkpoints: Checkpoints,
  specOf: (name: string) => CollectionSpec,
  projections: readonly string[],
  writes: readonly DocumentWrite[],
  checkpoint: bigint,
) {
  const byCollection = new Map<string, AnyBulkWriteOperation<Stored>[]>()
  for (const w of writes) {
    checkViewNames(specOf(w.collection), w.views)
    const ops = byCollection.get(w.collection) ?? []
    ops.push({
      updateOne: {
        // Only a newer revision replaces a document; an older one fails the
        // filter, tries to insert the same _id and is dropped as a duplicate.
        filter: { _id: w.key, revision: { $lt: w.revision } },
        update: {
          $set: {
            accountId: w.accountId,
            id: w.id,
            revision: w.revision,
            doc: w.doc,
            f: w.fields,
            v: w.views ?? {},
            ...(specOf(w.collection).viewsWhenIdle ? { missingViews: w.views === undefined } : {}),
          },
        },
        upsert: true,
      },
    })
    byCollection.set(w.collection, ops)
  }
  for (const [name, ops] of byCollection) {
    try {
      await collection(name).bulkWrite(ops, { ordered: false })
    } catch (error) {
      const errors = (error as { writeErrors?: { code: number }[] }).writeErrors
      if (!errors || errors.some((e) => e.code !== DUPLICATE_KEY)) throw error
    }
  }
  const position = Long.fromBigInt(checkpoint)
  for (const projection of projections) {
    const moved = await checkpoints.updateOne({ _id: projection, position: { $lt: position } }, { $set: { position } })
    if (moved.matchedCount === 0) {
      try {
        await checkpoints.insertOne({ _id: projection, position })
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error
      }
    }
  }
}
