import type { Readable } from 'node:stream'

/**
 * Uploaded files, streamed in and out so memory stays flat whatever their
 * size: a folder under DATA_DIR in the embedded layout, GridFS with MongoDB.
 */
export interface BlobStore {
  /** Streams `source` into the blob `key`; throws what the source throws (a size limit), leaving nothing behind. */
  write(key: string, source: Readable): Promise<{ bytes: number }>
  read(key: string): Readable
  remove(key: string): Promise<void>
  /** Every blob's key, in no order: uploads are few, kept only while their jobs run. */
  list(): Promise<string[]>
  close?(): Promise<void>
}
