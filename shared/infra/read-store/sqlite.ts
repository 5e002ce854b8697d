import type { WalCheckpoints } from '../sqlite/checkpoints.ts'
import { collectionSpecs, shadowOf, type CollectionSpec, type ReadStore } from './port.ts'
import { Statements, checkpointStatements, createTable, openDatabase } from './sqlite-statements.ts'
import { documentWrites } from './sqlite-writes.ts'
import { documentReads } from './sqlite-reads.ts'

/**
 * Embedded read store: a table per collection holding each document as JSON
 * beside its indexed fields. Every index starts with the account id and ends
 * with the id, so a filtered page is one index range scan in id order.
 */
export function createSqliteReadStore(
  file: string,
  collections: readonly CollectionSpec[],
  walCheckpoints?: WalCheckpoints,
): ReadStore {
  const db = openDatabase(file, walCheckpoints)
  for (const spec of collections) createTable(db, spec)
  const { specOf, joinShadow } = collectionSpecs(collections)
  const sql = new Statements(db)
  const checkpoints = checkpointStatements(db)
  const writes = documentWrites(db, sql, checkpoints, specOf)

  return {
    kind: 'sqlite',
    ...documentReads(sql, specOf),
    ...writes,
    async checkpoint(projection) {
      const row = checkpoints.of.get(projection)
      return row ? BigInt(row.position) : undefined
    },
    async prepareRebuild(collection, shadowProjection) {
      const shadow = shadowOf(specOf(collection))
      db.transaction(() => {
        db.exec(`DROP TABLE IF EXISTS ${shadow.name}`)
        createTable(db, shadow, false)
        checkpoints.forget.run(shadowProjection)
      }).immediate()
      return joinShadow(collection)
    },
    async completeRebuild(collection, projection, shadowProjection) {
      const spec = specOf(collection)
      return db
        .transaction(() => {
          // Under the write lock the live projector cannot commit: compare, then swap.
          const live = BigInt(checkpoints.of.get(projection)?.position ?? 0)
          const rebuilt = BigInt(checkpoints.of.get(shadowProjection)?.position ?? -1)
          if (rebuilt < live) return false
          db.exec(`DROP TABLE ${spec.name}; ALTER TABLE ${shadowOf(spec).name} RENAME TO ${spec.name}`)
          checkpoints.save.run(projection, rebuilt.toString())
          checkpoints.forget.run(shadowProjection)
          sql.clear()
          return true
        })
        .immediate()
    },
    async indexRebuild(collection) {
      // Each index in a statement of its own: a live projector waits for one at a time.
      createTable(db, shadowOf(specOf(collection)))
    },
    joinRebuild: joinShadow,
    async reset(collection, projection) {
      db.transaction(() => {
        db.prepare(`DELETE FROM ${specOf(collection).name}`).run()
        checkpoints.forget.run(projection)
      }).immediate()
    },
    async close() {
      db.close()
    },
  }
}
