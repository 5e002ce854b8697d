import { join } from 'node:path'
import type { Test } from 'tap'
import { allCollections } from '../../shared/infra/read-store/collections.ts'
import { createSqliteReadStore } from '../../shared/infra/read-store/sqlite.ts'
import { tempDir } from './temp.ts'
import type { ReadStore } from '../../shared/infra/read-store/port.ts'

/** A read store that notes the keys of each `getManyByKey`, one list a call: what a projection looked up. */
export function watchingLookups(store: ReadStore) {
  const lookedUp: string[][] = []
  const watched: ReadStore = {
    ...store,
    getManyByKey: <D>(collection: string, keys: readonly string[]) => {
      lookedUp.push([...keys])
      return store.getManyByKey<D>(collection, keys)
    },
  }
  return { watched, lookedUp }
}

/** An embedded read store with every collection, in a folder of the test's own, closed when it ends. */
export function openReadStore(t: Test) {
  const store = createSqliteReadStore(join(tempDir(t, 'shiplog-read-store-'), 'read.db'), allCollections)
  t.teardown(() => store.close())
  return store
}
