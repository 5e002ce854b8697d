import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/*
 * Secrets shiplog must keep to use them again (webhook signing secrets) are
 * stored sealed: AES-256-GCM under a key the operator provides
 * (SHIPLOG_SECRET_KEY), or one made once in the data directory, readable by
 * the service's user only. The event log, an export of it and the responses
 * kept for Idempotency-Key repeats hold only sealed values.
 */

const PREFIX = 'sealed:v1:'
const KEY_FILE = 'secret.key'

export interface SecretBox {
  seal(plain: string): string
  /** A sealed value opened; a value stored before sealing existed comes back as it is. */
  open(stored: string): string
  /** A key of its own for one purpose (HKDF-SHA256 of the service's key), so no two uses share one. */
  derive(purpose: string): Buffer
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('a secret key is 32 bytes')
  return {
    seal(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return `${PREFIX}${[iv, sealed, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.')}`
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored
      const [iv, sealed, tag] = stored
        .slice(PREFIX.length)
        .split('.')
        .map((p) => Buffer.from(p, 'base64url'))
      const decipher = createDecipheriv('aes-256-gcm', key, iv!)
      decipher.setAuthTag(tag!)
      return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8')
    },
    derive: (purpose) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `shiplog ${purpose}`, 32)),
  }
}

/** SHIPLOG_SECRET_KEY read as 32 bytes: base64 (44 characters) or hex (64). */
export function parseSecretKey(value: string): Buffer | undefined {
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64')
  return key.length === 32 ? key : undefined
}

/**
 * The data directory's key, made on first use with mode 0600; a second
 * process (or thread) making it at the same moment reads the one that won.
 */
export function dataDirectoryKey(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE)
  try {
    writeFileSync(path, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const key = parseSecretKey(readFileSync(path, 'utf8').trim())
  if (!key) throw new Error(`${path} does not hold a 32-byte key`)
  return key
}
