import { GridFSBucket, MongoClient } from 'mongodb'
import { pipeline } from 'node:stream/promises'
import type { BlobStore } from './port.ts'

/** Blobs in MongoDB's GridFS, so every worker of the distributed layout can read an upload. */
export async function createGridFsBlobStore(url: string): Promise<BlobStore> {
  const client = await new MongoClient(url).connect()
  const bucket = new GridFSBucket(client.db(), { bucketName: 'uploads' })
  const idsOf = async (key: string) => (await bucket.find({ filename: key }).toArray()).map((f) => f._id)
  return {
    async write(key, source) {
      const upload = bucket.openUploadStream(key)
      try {
        await pipeline(source, upload)
      } catch (error) {
        for (const id of await idsOf(key)) await bucket.delete(id)
        throw error
      }
      return { bytes: upload.length }
    },
    read: (key) => bucket.openDownloadStreamByName(key),
    async remove(key) {
      for (const id of await idsOf(key)) await bucket.delete(id)
    },
    list: async () => [...new Set((await bucket.find({}).toArray()).map((f) => f.filename))],
    close: () => client.close(),
  }
}
