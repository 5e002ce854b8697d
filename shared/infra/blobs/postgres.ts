import { Readable } from 'node:stream'
import { openPostgres, preferLz4 } from '../postgres.ts'
import type { BlobStore } from './port.ts'

/** Rows of at most this many bytes: an upload is streamed in without holding more. */
const CHUNK_BYTES = 1 << 20

/**
 * Blobs in PostgreSQL, in chunks of a megabyte, so every process of the
 * distributed layout can read an upload. A blob is written in one
 * transaction: a failed upload leaves nothing behind.
 */
export async function createPostgresBlobStore(url: string, schema?: string): Promise<BlobStore> {
  const { pool, transaction } = await openPostgres(url, {
    max: 4,
    schema,
    setup: [
      'CREATE TABLE IF NOT EXISTS blobs (key text NOT NULL, seq integer NOT NULL, data bytea NOT NULL, PRIMARY KEY (key, seq))',
    ],
  })
  await preferLz4(pool, 'blobs', ['data'])
  return {
    write: (key, source) =>
      transaction(async (client) => {
        await client.query('DELETE FROM blobs WHERE key = $1', [key])
        let seq = 0
        let bytes = 0
        let pending: Buffer[] = []
        let pendingBytes = 0
        const flush = async () => {
          if (pendingBytes === 0) return
          await client.query('INSERT INTO blobs (key, seq, data) VALUES ($1, $2, $3)', [
            key,
            seq++,
            Buffer.concat(pending),
          ])
          pending = []
          pendingBytes = 0
        }
        for await (const chunk of source) {
          const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string)
          pending.push(buffer)
          pendingBytes += buffer.length
          bytes += buffer.length
          if (pendingBytes >= CHUNK_BYTES) await flush()
        }
        await flush()
        return { bytes }
      }),
    read(key) {
      // One chunk a query, in order: memory holds a megabyte, whatever the blob's size.
      return Readable.from(
        (async function* () {
          for (let seq = 0; ; seq++) {
            const { rows } = await pool.query('SELECT data FROM blobs WHERE key = $1 AND seq = $2', [key, seq])
            // A blob that is not there is an error, as a missing file is; its end is the first missing row.
            if (rows.length === 0 && seq === 0) throw Object.assign(new Error(`no blob ${key}`), { code: 'ENOENT' })
            if (rows.length === 0) return
            yield (rows[0] as { data: Buffer }).data
          }
        })(),
      )
    },
    async remove(key) {
      await pool.query('DELETE FROM blobs WHERE key = $1', [key])
    },
    async list() {
      const { rows } = await pool.query('SELECT DISTINCT key FROM blobs')
      return rows.map((r: { key: string }) => r.key)
    },
    close: () => pool.end(),
  }
}
