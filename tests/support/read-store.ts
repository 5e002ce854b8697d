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
