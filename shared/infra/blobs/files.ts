import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readdir, rm, stat } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { BlobStore } from './port.ts'

const READ_AHEAD_BYTES = 1 << 20

/** Blobs as files under a folder; keys are slash-separated safe names. */
export function createFileBlobStore(folder: string): BlobStore {
  const pathOf = (key: string) => {
    if (!/^[\w-]+(\/[\w.-]+)*$/.test(key)) throw new Error(`unsafe blob key ${key}`)
    return join(folder, key)
  }
  return {
    async write(key, source) {
      const path = pathOf(key)
      await mkdir(dirname(path), { recursive: true })
      try {
        await pipeline(source, createWriteStream(path))
      } catch (error) {
        await rm(path, { force: true })
        throw error
      }
      return { bytes: (await stat(path)).size }
    },
    // Reads run ahead by a megabyte: with both cores busy, each read's trip through
    // libuv's thread pool is slow, and 64 KiB reads left the importer waiting on them.
    read: (key) => createReadStream(pathOf(key), { highWaterMark: READ_AHEAD_BYTES }),
    async remove(key) {
      await rm(pathOf(key), { force: true })
    },
    async list() {
      const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch((error) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
        throw error
      })
      return entries
        .filter((e) => e.isFile())
        .map((e) => relative(folder, join(e.parentPath, e.name)).split(sep).join('/'))
    },
  }
}
